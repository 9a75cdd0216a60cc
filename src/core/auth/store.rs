//! rmcp's credential store over the user's provider: tokens live in `tokens()`/`saveTokens()`
//! (the token response plus `issuer` and the time we received it, so expiry can be checked
//! after a restart), the client id in `clientInformation()`.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};
use serde_json::{json, Value};

use super::provider::{AuthProvider, Provider};

/// Name of the field we add to stored tokens: seconds since the epoch when they arrived.
pub const OBTAINED_AT: &str = "obtained_at";

pub struct ProviderCredentialStore {
    pub provider: Arc<dyn AuthProvider>,
}

fn store_error(e: String) -> AuthError {
    AuthError::CredentialStoreError(e)
}

pub fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

#[async_trait::async_trait]
impl CredentialStore for ProviderCredentialStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let provider = Provider(self.provider.as_ref());
        let tokens = provider.tokens().await.map_err(store_error)?;
        let client = provider.client_information().await.map_err(store_error)?;
        let client_id = client
            .as_ref()
            .and_then(|c| c.get("client_id"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let Some(tokens) = tokens else {
            return Ok((!client_id.is_empty()).then(|| StoredCredentials::new(client_id, None, vec![], None)));
        };
        let issuer = tokens.get("issuer").and_then(Value::as_str).map(str::to_string);
        let received_at = tokens.get(OBTAINED_AT).and_then(Value::as_u64);
        let scopes = tokens
            .get("scope")
            .and_then(Value::as_str)
            .map(|s| s.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        let response = serde_json::from_value(tokens)
            .map_err(|e| store_error(format!("the stored tokens are not a token response: {e}")))?;
        Ok(Some(StoredCredentials::new(client_id, Some(response), scopes, received_at).with_issuer(issuer)))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let provider = Provider(self.provider.as_ref());
        let known = provider.client_information().await.map_err(store_error)?;
        if known.is_none() && !credentials.client_id.is_empty() {
            provider
                .save_client_information(json!({ "client_id": credentials.client_id }))
                .await
                .map_err(store_error)?;
        }
        let Some(response) = credentials.token_response else {
            return provider.invalidate_credentials("tokens").await.map_err(store_error);
        };
        let mut tokens = serde_json::to_value(&response).map_err(|e| store_error(e.to_string()))?;
        if let Some(obj) = tokens.as_object_mut() {
            obj.insert(OBTAINED_AT.into(), json!(credentials.token_received_at.unwrap_or_else(now_secs)));
            if let Some(issuer) = credentials.issuer {
                obj.insert("issuer".into(), json!(issuer));
            }
        }
        provider.save_tokens(tokens).await.map_err(store_error)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        Provider(self.provider.as_ref()).invalidate_credentials("tokens").await.map_err(store_error)
    }
}
