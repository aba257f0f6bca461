//! Fuzzes the strace importer: any bytes, as one log or split into two `-ff` files, must import
//! without a panic, and every line must be either understood or counted as not understood.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    ward_report::strace::fuzz_one(data);
});
