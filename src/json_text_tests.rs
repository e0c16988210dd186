use super::*;

fn values(text: &str, pretty: bool) -> Vec<Option<String>> {
    top_level_values(text, &["a", "b", "z"], pretty).unwrap()
}

#[test]
fn floats_take_pythons_repr_in_serde_notation() {
    let cases = [
        ("1.0", "1.0"), ("-0.0", "-0.0"), ("0.0001", "0.0001"), ("1.5e-5", "0.000015"), ("1e-7", "1e-7"),
        ("1e16", "1e+16"), ("1e15", "1000000000000000.0"), ("-7.3246283531188965", "-7.324628353118896"),
        ("123.456e2", "12345.6"), ("2.5E-300", "2.5e-300"),
        ("1743154999700591.25", "1743154999700591.2"), ("-572.24957275390625", "-572.2495727539062"),
    ];
    for (given, written) in cases {
        assert_eq!(values(&format!("{{\"a\":{given}}}"), false)[0].as_deref(), Some(written), "{given}");
    }
}

#[test]
fn layout_as_json_dumps_at_level_one() {
    let text = r#"{ "a" : [1, -0, {"k": [], "e": {}}, "x\u00e9\/\n"], "b": null, "a": {"c": true} }"#;
    assert_eq!(values(text, false), vec![Some(r#"{"c":true}"#.into()), Some("null".into()), None]);
    let compact = top_level_values(&text.replacen("\"a\" :", "\"q\" :", 1), &["q"], false).unwrap();
    assert_eq!(compact[0].as_deref(), Some("[1,0,{\"k\":[],\"e\":{}},\"xé/\\n\"]"));
    let pretty = top_level_values(r#"{"a": {"k": [1, 2], "e": []}}"#, &["a"], true).unwrap();
    assert_eq!(pretty[0].as_deref(), Some("{\n    \"k\": [\n      1,\n      2\n    ],\n    \"e\": []\n  }"));
}

#[test]
fn malformed_text_is_an_error_not_a_panic() {
    for text in ["", "[", "{\"a\"", "{\"a\":", "{\"a\":[1,}", "{\"a\":\"\\ud800\"}", "{\"a\":1e999}", "{\"a\":--1}", "{\"a\":tru}", "{\"a\":{\"k\":1,\"k\":2}}", "{\"a\":{\"k\":1,\"\\u006b\":2}}", "{\"a\":\"x"] {
        assert!(top_level_values(text, &["a"], true).is_err(), "{text}");
    }
    let deep = format!("{{\"a\":{}{}}}", "[".repeat(200), "]".repeat(200));
    assert!(top_level_values(&deep, &["a"], false).is_err());
    assert!(exact_float_literals("{\"a\":\"x", &mut |_| Ok(String::new())).is_err());
}

#[test]
fn exact_literals_only_where_serde_misreads() {
    // -7.3246283531188965 is the nearest f64's shortest digits, which serde_json reads an ulp off.
    let text = r#"{"s":"1.5 -7.3246283531188965","v":[["a",-7.3246283531188965],["b",-2.5],["c",3]]}"#;
    let mut asked = Vec::new();
    let out = exact_float_literals(text, &mut |lit| {
        asked.push(lit.to_string());
        Ok("X".into())
    })
    .unwrap();
    assert!(asked.is_empty()); // the core's search found one
    let exact = crate::json_exact_float::exact_literal(-7.3246283531188965).unwrap().unwrap();
    assert_eq!(out, format!(r#"{{"s":"1.5 -7.3246283531188965","v":[["a",{exact}],["b",-2.5],["c",3]]}}"#));
    let big = exact_float_literals("[1.2345678901234567e300]", &mut |lit| Ok(format!("<{lit}>"))).unwrap();
    assert_eq!(big, "[<1.2345678901234567e300>]"); // past u128: asked
}

/// `to_str`'s float formatter (serde_json's) against `write_float` (Python's
/// repr in serde_json's notation, a tie to the even digit): the same text on
/// every kind of f64 a tokenizer.json holds, ties included.
#[test]
fn serde_jsons_float_format_equals_write_float() {
    let mut values = vec![
        0.0, -0.0, 1.0, 1e-4, 1e-5, 1.5e-5, 9.99e-6, 1e-7, 1e15, 1e16, 1e17, 1.2345678901234568e17, 5e-324, f64::MAX,
        f64::MIN_POSITIVE, 1743154999700591.25, -572.24957275390625, 0.1, 0.3, 2.5, 123456789012345680.0,
    ];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..100_000 {
        let r = next();
        values.push(f64::from_bits(r));
        values.push(f64::from(f32::from_bits(r as u32))); // sentencepiece's scores: f32 held as f64
        values.push((r >> 11) as f64 / 4.0); // quarters near 2**51: ties in the 17th digit
        values.push(-((r % (1 << 30)) as f64) / 1024.0 / 1024.0); // short binary fractions: ties
    }
    for x in values.into_iter().filter(|x| x.is_finite()) {
        let (mut fast, mut exact) = (String::new(), String::new());
        write_serde_float(&mut fast, x);
        write_float(&mut exact, x);
        assert_eq!(fast, exact, "{x:e}");
    }
}

#[test]
fn document_in_one_pass_equals_the_values_assembled() {
    use crate::json_document::document;
    let keys = ["n", "m"];
    let head = "{\"version\":\"1.0\"";
    let cases = [
        (r#"{"version":"1.0","n":{"a":1.50},"m":[["x",-2e-5]]}"#, r#"{"version":"1.0","n":{"a":1.5},"m":[["x",-0.00002]]}"#),
        (r#"{"m":[1],"x":{"deep":[true]}}"#, r#"{"version":"1.0","n":null,"m":[1]}"#),
        (r#"{"m":[1],"n":2}"#, r#"{"version":"1.0","n":2,"m":[1]}"#), // out of order: resolved by top_level_values
        (r#"{"n":1,"m":2,"n":3}"#, r#"{"version":"1.0","n":3,"m":2}"#), // repeated: the last, as json.loads
        ("{}", r#"{"version":"1.0","n":null,"m":null}"#),
    ];
    for (text, expected) in cases {
        assert_eq!(document(text, head, &keys, false).unwrap(), expected, "{text}");
    }
    let pretty = document(r#"{"n": {"a": [1, 2]}}"#, "{\n  \"version\": \"1.0\"", &keys, true).unwrap();
    assert_eq!(pretty, "{\n  \"version\": \"1.0\",\n  \"n\": {\n    \"a\": [\n      1,\n      2\n    ]\n  },\n  \"m\": null\n}");
    for bad in ["", "[]", "{\"n\":1,}", "{\"n\" 1}", "{\"n\":1 \"m\":2}", "{\"x\":[1,}", "{\"n\":\"\\ud800\"}", "{\"m\":1e999}"] {
        assert!(document(bad, head, &keys, false).is_err(), "{bad}");
    }
}
