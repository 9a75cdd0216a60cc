//! Dynamic client registration (RFC 7591).

use serde_json::{json, Value};

use super::http;
use super::{join_url, parse_url, provider_error, str_field, unless_other_issuer, StepError};
use crate::core::auth::provider::{Provider, ProviderConfig};
use crate::core::net::{HttpRequest, NetClient};

/// One registration per server and app: processes starting together register once, under the
/// storage's lock (where it has one), and the others read the registration it stored.
#[allow(clippy::too_many_arguments)]
pub async fn register_once(
    net: &NetClient,
    p: &Provider<'_>,
    config: &ProviderConfig,
    client_metadata: &Value,
    authorization_server: &url::Url,
    metadata: Option<&Value>,
    issuer: &str,
    scope: Option<&str>,
) -> Result<Value, StepError> {
    let held = p.lock_credentials(config, "client").await.map_err(provider_error)?;
    let registered = register_locked(net, p, held.is_some(), client_metadata, authorization_server, metadata, issuer, scope).await;
    p.unlock_credentials(held).await;
    registered
}

/// Registers `client_metadata` (with `scope` overriding its own) and returns the client
/// information the server issued.
pub async fn register_client(
    net: &NetClient,
    authorization_server: &url::Url,
    metadata: Option<&Value>,
    client_metadata: &Value,
    scope: Option<&str>,
) -> Result<Value, StepError> {
    let url = match metadata {
        Some(m) => {
            let endpoint = m
                .get("registration_endpoint")
                .and_then(Value::as_str)
                .ok_or_else(|| StepError::failed("Incompatible auth server: does not support dynamic client registration"))?;
            parse_url(endpoint)?
        }
        None => join_url(authorization_server, "/register")?,
    };
    let mut submitted = client_metadata.clone();
    if let (Some(scope), Some(obj)) = (scope, submitted.as_object_mut()) {
        obj.insert("scope".into(), Value::String(scope.to_string()));
    }
    let mut request = HttpRequest::new("POST", url).header("Content-Type", "application/json");
    request.body = Some(serde_json::to_vec(&submitted).map_err(|e| StepError::failed(e.to_string()))?.into());
    let reply = http::send(net, request).await?;
    if !reply.ok() {
        return Err(StepError::RegistrationRejected { status: reply.status, body: reply.text(), submitted });
    }
    let info = reply.json().map_err(|e| StepError::failed(format!("Invalid client registration response: {e}")))?;
    if info.get("client_id").and_then(Value::as_str).is_none() {
        return Err(StepError::failed("Invalid client registration response: client_id is missing"));
    }
    Ok(info)
}

#[allow(clippy::too_many_arguments)]
async fn register_locked(
    net: &NetClient,
    p: &Provider<'_>,
    locked: bool,
    client_metadata: &Value,
    authorization_server: &url::Url,
    metadata: Option<&Value>,
    issuer: &str,
    scope: Option<&str>,
) -> Result<Value, StepError> {
    if locked {
        if let Some(client) = unless_other_issuer(p.client_information().await.map_err(provider_error)?, issuer) {
            return Ok(client);
        }
    }
    let client_metadata = with_supported_auth_method(client_metadata, metadata);
    let mut client = register_client(net, authorization_server, metadata, &client_metadata, scope).await?;
    if let Some(obj) = client.as_object_mut() {
        obj.insert("issuer".into(), json!(issuer));
    }
    p.save_client_information(client.clone()).await.map_err(provider_error)?;
    Ok(client)
}

/// The client metadata to register, with a `token_endpoint_auth_method` the authorization
/// server supports: when it lists its methods and not the one asked for (typically `none`),
/// `client_secret_basic`, else `client_secret_post`, else the first it lists. The token
/// requests then authenticate with what the registration answer says.
pub(super) fn with_supported_auth_method(client_metadata: &Value, metadata: Option<&Value>) -> Value {
    let supported: Vec<&str> = metadata
        .and_then(|m| m.get("token_endpoint_auth_methods_supported"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    // RFC 7591 §2: an absent method means client_secret_basic.
    let asked = str_field(client_metadata, "token_endpoint_auth_method").unwrap_or("client_secret_basic");
    if supported.is_empty() || supported.contains(&asked) {
        return client_metadata.clone();
    }
    let chosen = ["client_secret_basic", "client_secret_post"].into_iter().find(|m| supported.contains(m)).unwrap_or(supported[0]);
    let mut adjusted = client_metadata.clone();
    if let Some(obj) = adjusted.as_object_mut() {
        obj.insert("token_endpoint_auth_method".into(), json!(chosen));
    }
    adjusted
}
