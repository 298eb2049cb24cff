//! A PEBBLES deck: parsed and, when it asks for few pebbles, translated into a scene (its
//! packing included).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(deck) = grainflow::io::pebbles::Deck::parse(text, "fuzz.inp") else {
        return;
    };
    // Large packings are slow by right, not hangs: the fuzzer keeps to small ones.
    if deck.has("number_of_pebbles") && deck.num("number_of_pebbles") <= 200.0 {
        let _ = deck.translate(std::path::Path::new("/nonexistent-fuzz"), &[]);
    }
});
