//! DPoP (RFC 9449): a per-credential ES256 key pair and the proofs it signs — one for each
//! token request and each request to the MCP server (`htm`, `htu`, a fresh `jti` and `iat`;
//! `ath`, the hash of the access token it goes with; `nonce` when a server supplied one).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde_json::{json, Value};

/// The error a server answers when a proof must carry its nonce (RFC 9449 §8, §9).
pub const USE_NONCE: &str = "use_dpop_nonce";
/// The header a server supplies its nonce in.
pub const NONCE_HEADER: &str = "dpop-nonce";

/// Where stored tokens keep the key they are bound to (its PKCS #8 document, base64url), so the
/// key is kept wherever the provider keeps its tokens.
pub const STORED_KEY: &str = "dpop_key";

pub struct DpopKey {
    pair: EcdsaKeyPair,
    pkcs8: Vec<u8>,
    /// The public key as a JWK (`kty`, `crv`, `x`, `y`).
    jwk: Value,
    rng: SystemRandom,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey").field("jwk", &self.jwk).finish()
    }
}

impl DpopKey {
    /// A new P-256 key pair.
    pub fn generate() -> Result<Self, String> {
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
            .map_err(|_| "generating a DPoP key failed".to_string())?;
        Self::from_pkcs8(pkcs8.as_ref().to_vec())
    }

    /// The key stored tokens carry (`STORED_KEY`), if they carry a readable one.
    pub fn from_tokens(tokens: &Value) -> Option<Self> {
        let stored = tokens.get(STORED_KEY)?.as_str()?;
        Self::from_pkcs8(URL_SAFE_NO_PAD.decode(stored).ok()?).ok()
    }

    /// The public key, as a JWK.
    pub fn jwk(&self) -> &Value {
        &self.jwk
    }

    /// The key as stored tokens carry it.
    pub fn stored(&self) -> String {
        URL_SAFE_NO_PAD.encode(&self.pkcs8)
    }

    fn from_pkcs8(pkcs8: Vec<u8>) -> Result<Self, String> {
        let rng = SystemRandom::new();
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &pkcs8, &rng).map_err(|_| "reading a DPoP key failed".to_string())?;
        // An uncompressed P-256 point: 0x04, then x and y of 32 bytes each.
        let point = pair.public_key().as_ref();
        if point.len() != 65 {
            return Err("unexpected DPoP public key".into());
        }
        let jwk = json!({ "kty": "EC", "crv": "P-256", "x": URL_SAFE_NO_PAD.encode(&point[1..33]), "y": URL_SAFE_NO_PAD.encode(&point[33..65]) });
        Ok(DpopKey { pair, pkcs8, jwk, rng })
    }

    /// A proof for a request of `method` to `url` (its query and fragment left out), bound to
    /// `access_token` when one goes with it, carrying the server's `nonce` when it gave one.
    pub fn proof(&self, method: &str, url: &url::Url, access_token: Option<&str>, nonce: Option<&str>) -> Result<String, String> {
        let mut htu = url.clone();
        htu.set_query(None);
        htu.set_fragment(None);
        let mut jti = [0u8; 16];
        self.rng.fill(&mut jti).map_err(|_| "no randomness for a DPoP proof".to_string())?;
        let iat = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default();
        let mut claims = json!({ "jti": URL_SAFE_NO_PAD.encode(jti), "htm": method, "htu": htu.as_str(), "iat": iat });
        if let Some(token) = access_token {
            claims["ath"] = json!(URL_SAFE_NO_PAD.encode(ring::digest::digest(&ring::digest::SHA256, token.as_bytes())));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        let header = json!({ "typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk });
        let signing_input = format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()));
        let signature = self.pair.sign(&self.rng, signing_input.as_bytes()).map_err(|_| "signing a DPoP proof failed".to_string())?;
        Ok(format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signature.as_ref())))
    }
}

/// Whether a token response's `token_type` says the token is DPoP-bound.
pub fn bound(tokens: &Value) -> bool {
    tokens.get("token_type").and_then(Value::as_str).is_some_and(|t| t.eq_ignore_ascii_case("DPoP"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{UnparsedPublicKey, ECDSA_P256_SHA256_FIXED};

    fn part(jwt: &str, i: usize) -> Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(jwt.split('.').nth(i).unwrap()).unwrap()).unwrap()
    }

    #[test]
    fn a_proof_is_a_signed_dpop_jwt_with_its_claims() {
        let key = DpopKey::generate().unwrap();
        let url = url::Url::parse("http://127.0.0.1:9/mcp?x=1#f").unwrap();
        let proof = key.proof("POST", &url, Some("tok"), Some("n1")).unwrap();
        let (header, claims) = (part(&proof, 0), part(&proof, 1));
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["jwk"]["crv"], "P-256");
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "http://127.0.0.1:9/mcp");
        assert_eq!(claims["nonce"], "n1");
        assert_eq!(claims["ath"], URL_SAFE_NO_PAD.encode(ring::digest::digest(&ring::digest::SHA256, b"tok")));
        let (input, signature) = proof.rsplit_once('.').unwrap();
        let x = URL_SAFE_NO_PAD.decode(header["jwk"]["x"].as_str().unwrap()).unwrap();
        let y = URL_SAFE_NO_PAD.decode(header["jwk"]["y"].as_str().unwrap()).unwrap();
        let point = [&[4u8][..], &x, &y].concat();
        let verified = UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, point).verify(input.as_bytes(), &URL_SAFE_NO_PAD.decode(signature).unwrap());
        assert!(verified.is_ok(), "the proof verifies with the key in its header");
        let other = key.proof("GET", &url, None, None).unwrap();
        assert_ne!(part(&other, 1)["jti"], claims["jti"], "a fresh jti each time");
        assert!(part(&other, 1).get("ath").is_none());
    }

    #[test]
    fn the_key_survives_in_the_tokens_it_is_bound_to() {
        let key = DpopKey::generate().unwrap();
        let again = DpopKey::from_tokens(&json!({ "access_token": "a", STORED_KEY: key.stored() })).unwrap();
        assert_eq!(again.jwk, key.jwk);
        assert!(DpopKey::from_tokens(&json!({ STORED_KEY: "not a key" })).is_none());
        assert!(DpopKey::from_tokens(&json!({ "access_token": "a" })).is_none());
    }

    #[test]
    fn dpop_bound_tokens_say_so_in_their_type() {
        assert!(bound(&json!({ "token_type": "DPoP" })));
        assert!(!bound(&json!({ "token_type": "Bearer" })));
    }
}
