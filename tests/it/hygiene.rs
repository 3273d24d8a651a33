//! The macros' generated code in hostile surroundings (issue: hostile input, finding 14):
//! items named like the generated locals, types named `usize` and `str` in scope, a module
//! without the prelude, and a one-line `#[shapes::check]` body under `-D unused_braces`.
//! That this module compiles is most of the test; each module also runs its code once.

#![deny(unused_braces)]

/// Unit structs and constants named like every local the generated code binds: a `let` of one
/// of these names would be read as a pattern matching the item.
#[allow(non_camel_case_types, non_upper_case_globals, dead_code)]
mod clashing_names {
    use shapes::{Shape, Shaped};

    struct __cx;
    struct __map;
    struct __s;
    struct __d;
    struct __a;
    struct __src;
    struct __m;
    struct __e;
    struct __i;
    struct __n;
    struct __child;
    struct __slot0;
    const __v0: u8 = 0;
    const __shapes_scope: u8 = 0;
    const __shapes_error: u8 = 0;
    const __shapes_ret: u8 = 0;
    const __shapes_ok: u8 = 0;
    const __shapes_from: u8 = 0;
    const __shapes_recv: u8 = 0;
    const __b: u8 = 0;
    const __v: u8 = 0;
    const __t: u8 = 0;
    const __axis: u16 = 0;
    struct __inner;

    #[derive(Shaped)]
    #[shapes(where = "d = h * k")]
    struct Inner<T> {
        #[shape("(d, h, k)")]
        w: T,
        #[shape("(d,)")]
        b: Option<T>,
    }

    #[derive(Shaped)]
    struct Outer<T> {
        #[shape("(v, d)")]
        embed: T,
        #[shape(nested)]
        layers: Vec<Inner<T>>,
        #[shape("(d,)")]
        norms: Vec<T>,
    }

    impl<T: shapes::verify::HasShape> Outer<T> {
        #[shapes::check(self, where = "v >= 1")]
        fn rows(&self, #[shape("(n, d)")] x: &Shape) -> usize {
            x.dims()[0]
        }
    }

    #[shapes::check]
    fn matmul(#[shape("(a, b)")] x: &Shape, #[shape("(b, c)")] y: &Shape) -> Shape {
        Shape::new(&[x.dims()[0], y.dims()[1]])
    }

    #[test]
    fn the_generated_locals_do_not_clash_with_items_in_scope() {
        let s = |d: &[usize]| Shape::new(d);
        let inner = || Inner {
            w: s(&[6, 2, 3]),
            b: Some(s(&[6])),
        };
        let m = Outer {
            embed: s(&[10, 6]),
            layers: vec![inner(), inner()],
            norms: vec![s(&[6])],
        };
        assert!(m.verify().is_ok());
        assert_eq!(matmul(&s(&[2, 3]), &s(&[3, 4])).dims(), [2, 4]);
        assert_eq!(m.rows(&s(&[4, 6])), 4);
    }
}

/// Types named `usize` and `str` in scope: generated code must name the primitives absolutely.
#[allow(non_camel_case_types, dead_code)]
mod shadowed_primitives {
    use shapes::{Shape, Shaped};

    struct usize;
    struct str;
    struct u8;
    struct bool;

    #[derive(Shaped)]
    struct Layer<T> {
        #[shape("(n, 2 * n)")]
        w: T,
        #[shape("(3,)")]
        fixed: [f32; 3],
    }

    impl<T: shapes::verify::HasShape> Layer<T> {
        #[shapes::check(self, where = "n >= 1")]
        fn same(&self, #[shape("(n,)")] x: &Shape) -> Shape {
            x.clone()
        }
    }

    #[shapes::check]
    fn double(#[shape("(n,)")] x: &Shape) -> Shape {
        x.clone()
    }

    #[test]
    fn primitives_are_named_absolutely() {
        let l = Layer {
            w: Shape::from([2, 4]),
            fixed: [0.0; 3],
        };
        assert!(l.verify().is_ok());
        assert_eq!(double(&Shape::from([5])).dims(), [5]);
        assert_eq!(l.same(&Shape::from([2])).dims(), [2]);
    }
}

/// No prelude: `Vec`, `Option`, `Some`, `Box` and the traits are not in scope unless named.
mod no_prelude {
    #![no_implicit_prelude]

    use ::shapes::{Shape, Shaped};
    use ::std::boxed::Box;
    use ::std::option::Option;
    use ::std::vec::Vec;

    #[derive(Shaped)]
    struct Layer<T> {
        #[shape("(n, n)")]
        w: T,
        #[shape("(n,)")]
        b: Option<T>,
        #[shape("(n,)")]
        many: Vec<T>,
        #[shape("(2,)")]
        arr: [f32; 2],
        #[shape("(n,)")]
        boxed: Box<T>,
    }

    #[derive(Shaped)]
    struct Model<T> {
        #[shape(nested)]
        layers: Vec<Layer<T>>,
        #[shape(nested)]
        last: Option<Layer<T>>,
    }

    impl<T: ::shapes::verify::HasShape> Layer<T> {
        #[::shapes::check(self, where = "n >= 1")]
        fn width(&self, #[shape("(batch, n)")] x: &Shape) -> usize {
            x.dims()[1]
        }
    }

    #[::shapes::check]
    fn id(#[shape("(n,)")] x: &Shape) -> Shape {
        ::std::clone::Clone::clone(x)
    }

    #[test]
    fn generated_code_needs_no_prelude() {
        let layer = || Layer {
            w: Shape::new(&[2, 2]),
            b: Option::Some(Shape::new(&[2])),
            many: ::std::vec![Shape::new(&[2])],
            arr: [0.0; 2],
            boxed: Box::new(Shape::new(&[2])),
        };
        let m = Model {
            layers: ::std::vec![layer()],
            last: Option::None,
        };
        ::std::assert!(m.verify().is_ok());
        ::std::assert_eq!(id(&Shape::new(&[3])).dims(), [3]);
        ::std::assert_eq!(layer().width(&Shape::new(&[5, 2])), 2);
    }
}

/// A one-line body: the wrapped body must not trip `unused_braces` (denied above).
mod one_line_body {
    use shapes::Shape;

    #[shapes::check]
    fn rank(#[shape("(a, b)")] x: &Shape) -> usize {
        x.rank()
    }

    #[shapes::check]
    fn nothing(#[shape("(a,)")] _x: &Shape) {}

    #[test]
    fn one_line_bodies_compile_warning_free() {
        assert_eq!(rank(&Shape::from([1, 2])), 2);
        nothing(&Shape::from([1]));
    }
}
