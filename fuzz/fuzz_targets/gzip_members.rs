//! cargo-fuzz target: `spotcheck::fuzz_entry::gzip_members` on arbitrary bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    spotcheck::fuzz_entry::gzip_members(data);
});
