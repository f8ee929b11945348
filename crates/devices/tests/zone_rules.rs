use proptest as _;
#[test]
fn placeholder() {}
