//! Encryption at rest: every value is sealed with AES-256-GCM under a key derived (HKDF-SHA256)
//! from the store's secret and the store's own random salt. The row's scope and key are the
//! additional data, so a value copied to another row does not open.

use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM, NONCE_LEN};
use ring::hkdf;
use ring::rand::{SecureRandom, SystemRandom};

/// The first byte of a sealed value: the format, so a later one can be told apart.
const FORMAT: u8 = 1;
const INFO: &[u8] = b"mastra-mcp-native store v1 aes-256-gcm";

/// What a check value seals: a wrong secret fails to open it.
pub const CHECK_PLAINTEXT: &[u8] = b"mastra-mcp-native";

pub struct Sealer {
    key: LessSafeKey,
    rng: SystemRandom,
}

/// A value that does not open: the wrong key, or bytes that were changed.
#[derive(Debug)]
pub struct Unreadable;

struct KeyLen;

impl hkdf::KeyType for KeyLen {
    fn len(&self) -> usize {
        32
    }
}

/// Random bytes from the system.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut out = [0u8; N];
    // The system RNG does not fail on the platforms we ship; zeros would only weaken a salt.
    let _ = SystemRandom::new().fill(&mut out);
    out
}

fn aad(scope: &str, key: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(scope.len() + key.len() + 1);
    out.extend_from_slice(scope.as_bytes());
    out.push(0);
    out.extend_from_slice(key.as_bytes());
    out
}

impl Sealer {
    pub fn new(secret: &[u8], salt: &[u8]) -> Sealer {
        let prk = hkdf::Salt::new(hkdf::HKDF_SHA256, salt).extract(secret);
        let mut bytes = [0u8; 32];
        // Expanding 32 bytes from SHA-256 cannot exceed HKDF's limit (255 × 32).
        if let Ok(okm) = prk.expand(&[INFO], KeyLen) {
            let _ = okm.fill(&mut bytes);
        }
        let key = LessSafeKey::new(UnboundKey::new(&AES_256_GCM, &bytes).unwrap_or_else(|_| unreachable!("32 bytes is AES-256's key length")));
        Sealer { key, rng: SystemRandom::new() }
    }

    pub fn seal(&self, scope: &str, key: &str, plaintext: &[u8]) -> Vec<u8> {
        let mut nonce = [0u8; NONCE_LEN];
        let _ = self.rng.fill(&mut nonce);
        let mut body = plaintext.to_vec();
        // Sealing in place only fails for inputs over GCM's limit (64 GiB).
        let _ = self.key.seal_in_place_append_tag(Nonce::assume_unique_for_key(nonce), Aad::from(aad(scope, key)), &mut body);
        let mut out = Vec::with_capacity(1 + NONCE_LEN + body.len());
        out.push(FORMAT);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&body);
        out
    }

    pub fn open(&self, scope: &str, key: &str, sealed: &[u8]) -> Result<Vec<u8>, Unreadable> {
        if sealed.len() < 1 + NONCE_LEN || sealed[0] != FORMAT {
            return Err(Unreadable);
        }
        let nonce = Nonce::try_assume_unique_for_key(&sealed[1..1 + NONCE_LEN]).map_err(|_| Unreadable)?;
        let mut body = sealed[1 + NONCE_LEN..].to_vec();
        let plain = self.key.open_in_place(nonce, Aad::from(aad(scope, key)), &mut body).map_err(|_| Unreadable)?;
        Ok(plain.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_value_opens_only_under_its_own_row_and_secret() {
        let salt = random_bytes::<16>();
        let sealer = Sealer::new(b"secret", &salt);
        let sealed = sealer.seal("user-1", "oauth:tokens", b"{\"access_token\":\"a\"}");
        assert!(!sealed.windows(12).any(|w| w == b"access_token"), "the plaintext is not in the row");
        assert_eq!(sealer.open("user-1", "oauth:tokens", &sealed).unwrap(), b"{\"access_token\":\"a\"}");
        assert!(sealer.open("user-2", "oauth:tokens", &sealed).is_err(), "another scope's row does not open");
        assert!(sealer.open("user-1", "oauth:client", &sealed).is_err(), "another key's row does not open");
        assert!(Sealer::new(b"other", &salt).open("user-1", "oauth:tokens", &sealed).is_err(), "another secret does not open");
        let mut changed = sealed.clone();
        let last = changed.len() - 1;
        changed[last] ^= 1;
        assert!(sealer.open("user-1", "oauth:tokens", &changed).is_err(), "a changed byte does not open");
        assert!(sealer.open("user-1", "oauth:tokens", b"junk").is_err());
    }
}
