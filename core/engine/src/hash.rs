//! A small, stable 64-bit hash (FNV-1a) for state hashes and stream ids.
//!
//! `std`'s `DefaultHasher` may change between Rust releases; replays must not.

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a over bytes.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = StableHasher::new();
    h.bytes(bytes);
    h.finish()
}

/// Incremental FNV-1a over integers and bytes, in a fixed little-endian encoding.
#[derive(Clone, Debug)]
pub struct StableHasher(u64);

impl Default for StableHasher {
    fn default() -> Self {
        StableHasher::new()
    }
}

impl StableHasher {
    /// An empty hash.
    pub fn new() -> Self {
        StableHasher(OFFSET)
    }

    /// Adds bytes.
    pub fn bytes(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= *b as u64;
            self.0 = self.0.wrapping_mul(PRIME);
        }
    }

    /// Adds an integer.
    pub fn u64(&mut self, n: u64) {
        self.bytes(&n.to_le_bytes());
    }

    /// Adds a signed integer.
    pub fn i64(&mut self, n: i64) {
        self.u64(n as u64);
    }

    /// Adds a string, length first so that ("ab","c") and ("a","bc") differ.
    pub fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.bytes(s.as_bytes());
    }

    /// The hash so far.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_fnv1a_values() {
        assert_eq!(super::fnv1a(b""), 0xcbf29ce484222325);
        assert_eq!(super::fnv1a(b"a"), 0xaf63dc4c8601ec8c);
    }
}
