//! Dynamic client registration (RFC 7591).

use serde_json::Value;

use super::http;
use super::{join_url, parse_url, StepError};
use crate::core::net::{HttpRequest, NetClient};

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
