use shapes::Shape;

#[derive(Debug)]
struct MyError;

#[shapes::check]
fn f(#[shape("(n,)")] x: &Shape) -> Result<(), MyError> {
    Ok(())
}

fn main() {}
