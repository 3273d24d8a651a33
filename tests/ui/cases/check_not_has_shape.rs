struct NotATensor;

#[shapes::check]
fn f(#[shape("(n,)")] x: &NotATensor) {}

fn main() {}
