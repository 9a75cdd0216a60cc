//! The OAuth steps of the core as the MCP SDK's functions (`auth`, the discovery functions,
//! `startAuthorization`, `exchangeAuthorization`, `refreshAuthorization`, `registerClient`,
//! `selectResourceURL`, `parseErrorResponse`) and the pure header/metadata helpers. Each step
//! is one async call; a custom `fetch` comes in as the fetch bridge's three functions, the
//! provider (or a lone `addClientAuthentication`) as one provider-operation function.

use std::sync::{Arc, OnceLock};

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::{json, Value};

use super::fetch::{CancelFn, FetchFn, JsFetch, ReadFn};
use super::oauth::{AuthFn, JsAuthProvider};
use crate::core::auth::challenge;
use crate::core::auth::provider::Provider;
use crate::core::auth::steps::driver::{self, AuthOptions, ProviderClientAuth};
use crate::core::auth::steps::token::{self, AuthorizationParams, ClientAuthentication, TokenCall};
use crate::core::auth::steps::{discovery, parse_url, register, StepError};
use crate::core::auth::AuthProvider;
use crate::core::net::reqwest_backend::ReqwestBackend;
use crate::core::net::{HostPolicy, NetClient, SharedBackend};

/// Errors cross as JSON under this key, for the face to raise the SDK's class.
fn step_error(e: StepError) -> Error {
    Error::new(Status::GenericFailure, json!({ "oauthStepError": e.to_json() }).to_string())
}

fn bad_input(message: impl std::fmt::Display) -> Error {
    step_error(StepError::Failed(message.to_string()))
}

/// One shared HTTP client for the standalone OAuth functions (built on first use).
fn reqwest_backend() -> SharedBackend {
    static BACKEND: OnceLock<SharedBackend> = OnceLock::new();
    BACKEND.get_or_init(|| Arc::new(ReqwestBackend::shared())).clone()
}

/// A user's `fetch` through the fetch bridge, or our own HTTP client. OAuth helpers called on
/// their own have no `allowedHosts`.
fn net_for(label: &str, fetch: Option<FetchFn>, read: Option<ReadFn>, cancel: Option<CancelFn>) -> Result<NetClient> {
    let backend = match (fetch, read, cancel) {
        (Some(fetch), Some(read), Some(cancel)) => {
            Arc::new(JsFetch { fetch: Arc::new(fetch), read: Arc::new(read), cancel: Arc::new(cancel) }).backend_for(label)
        }
        _ => reqwest_backend(),
    };
    Ok(NetClient::new(backend, HostPolicy::allow_all(), Vec::new()))
}

fn s<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input.get(key).and_then(Value::as_str)
}

fn req<'a>(input: &'a Value, key: &str) -> Result<&'a str> {
    s(input, key).ok_or_else(|| bad_input(format!("{key} is required")))
}

fn obj<'a>(input: &'a Value, key: &str) -> Option<&'a Value> {
    input.get(key).filter(|v| v.is_object())
}

fn url_arg(input: &Value, key: &str) -> Result<url::Url> {
    parse_url(req(input, key)?).map_err(step_error)
}

fn opt_url(input: &Value, key: &str) -> Result<Option<url::Url>> {
    s(input, key).map(parse_url).transpose().map_err(step_error)
}

/// One OAuth step. `step` names the SDK function; `input` carries its arguments as JSON (URLs
/// as strings). Rejects with `{"oauthStepError": {...}}`.
#[napi(ts_return_type = "Promise<unknown>")]
pub async fn oauth_step(
    step: String,
    #[napi(ts_arg_type = "Record<string, unknown>")] input: Value,
    #[napi(ts_arg_type = "((request: FetchRequest) => Promise<FetchResponse>) | undefined | null")] on_fetch: Option<FetchFn>,
    #[napi(ts_arg_type = "((bodyId: number) => Promise<Buffer | null>) | undefined | null")] on_fetch_read: Option<ReadFn>,
    #[napi(ts_arg_type = "((bodyId: number) => void) | undefined | null")] on_fetch_cancel: Option<CancelFn>,
    #[napi(ts_arg_type = "((request: { server: string; op: string; args: unknown }) => Promise<unknown>) | undefined | null")] on_provider: Option<
        AuthFn,
    >,
) -> Result<Value> {
    let label = s(&input, "label").unwrap_or("OAuth").to_string();
    let net = net_for(&label, on_fetch, on_fetch_read, on_fetch_cancel)?;
    let provider = on_provider.map(|f| JsAuthProvider { callback: Arc::new(f), server: label.clone() });
    run_step(&step, &input, &net, provider.as_ref().map(|p| p as &dyn AuthProvider)).await
}

async fn run_step(step: &str, input: &Value, net: &NetClient, provider: Option<&dyn AuthProvider>) -> Result<Value> {
    let version = s(input, "protocolVersion");
    match step {
        "discoverOAuthProtectedResourceMetadata" => {
            let server = url_arg(input, "serverUrl")?;
            let explicit = opt_url(input, "resourceMetadataUrl")?;
            discovery::protected_resource_metadata(net, &server, explicit, version).await.map_err(step_error)
        }
        "discoverOAuthMetadata" => {
            let issuer = url_arg(input, "issuer")?;
            let server = opt_url(input, "authorizationServerUrl")?.unwrap_or(issuer);
            Ok(discovery::oauth_metadata(net, &server, version).await.map_err(step_error)?.unwrap_or(Value::Null))
        }
        "discoverAuthorizationServerMetadata" => {
            let expected = req(input, "authorizationServerUrl")?;
            let skip = input.get("skipIssuerValidation").and_then(Value::as_bool).unwrap_or(false);
            Ok(discovery::authorization_server_metadata(net, expected, version, skip).await.map_err(step_error)?.unwrap_or(Value::Null))
        }
        "startAuthorization" => {
            let server = url_arg(input, "authorizationServerUrl")?;
            let client = obj(input, "clientInformation").ok_or_else(|| bad_input("clientInformation is required"))?;
            let resource = opt_url(input, "resource")?.map(String::from);
            let a = token::start_authorization(
                &server,
                &AuthorizationParams {
                    metadata: obj(input, "metadata"),
                    client_id: s(client, "client_id").unwrap_or_default(),
                    redirect_url: req(input, "redirectUrl")?,
                    scope: s(input, "scope"),
                    state: s(input, "state"),
                    resource: resource.as_deref(),
                },
            )
            .map_err(step_error)?;
            Ok(json!({ "authorizationUrl": a.url.as_str(), "codeVerifier": a.code_verifier }))
        }
        "exchangeAuthorization" | "refreshAuthorization" => {
            let server = url_arg(input, "authorizationServerUrl")?;
            let resource = opt_url(input, "resource")?.map(String::from);
            let hook = provider.map(ProviderClientAuth);
            let call = TokenCall {
                net,
                authorization_server: &server,
                metadata: obj(input, "metadata"),
                client_information: obj(input, "clientInformation"),
                resource: resource.as_deref(),
                client_auth: hook.as_ref().map(|h| h as &dyn ClientAuthentication),
                dpop: None,
            };
            let tokens = if step == "exchangeAuthorization" {
                token::exchange_authorization(
                    &call,
                    req(input, "authorizationCode")?,
                    s(input, "iss"),
                    req(input, "codeVerifier")?,
                    req(input, "redirectUri")?,
                )
                .await
            } else {
                token::refresh_authorization(&call, req(input, "refreshToken")?).await
            };
            tokens.map_err(step_error)
        }
        "registerClient" => {
            let server = url_arg(input, "authorizationServerUrl")?;
            let client_metadata = obj(input, "clientMetadata").ok_or_else(|| bad_input("clientMetadata is required"))?;
            register::register_client(net, &server, obj(input, "metadata"), client_metadata, s(input, "scope")).await.map_err(step_error)
        }
        "selectResourceURL" => {
            let provider = provider.ok_or_else(|| bad_input("a provider is required"))?;
            let server = url_arg(input, "serverUrl")?;
            let config = Provider(provider).config().await.map_err(|e| step_error(StepError::Provider(e)))?;
            let chosen = driver::select_resource_url(&server, provider, &config, obj(input, "resourceMetadata")).await.map_err(step_error)?;
            Ok(chosen.map(|u| json!(u)).unwrap_or(Value::Null))
        }
        "auth" => {
            let provider = provider.ok_or_else(|| bad_input("a provider is required"))?;
            let flag = |k: &str| input.get(k).and_then(Value::as_bool).unwrap_or(false);
            let options = AuthOptions {
                server_url: req(input, "serverUrl")?.to_string(),
                authorization_code: s(input, "authorizationCode").map(str::to_string),
                iss: s(input, "iss").map(str::to_string),
                scope: s(input, "scope").map(str::to_string),
                resource_metadata_url: s(input, "resourceMetadataUrl").map(str::to_string),
                skip_issuer_metadata_validation: flag("skipIssuerMetadataValidation"),
                force_reauthorization: flag("forceReauthorization"),
                no_redirect: false,
                rediscover: false,
                dpop: None,
            };
            let result = driver::auth(net, provider, &options).await.map_err(step_error)?;
            Ok(json!(result.as_str()))
        }
        other => Err(bad_input(format!("unknown OAuth step {other}"))),
    }
}

/// The pure helpers (synchronous, as in the SDK): `buildDiscoveryUrls`,
/// `extractResourceMetadataUrl`, `generateWWWAuthenticateHeader`, `extractBearerToken`,
/// `generateProtectedResourceMetadata`, `parseErrorResponse`'s parsing.
#[napi(ts_return_type = "unknown")]
pub fn oauth_helper(name: String, #[napi(ts_arg_type = "Record<string, unknown>")] input: Value) -> Result<Value> {
    match name.as_str() {
        "buildDiscoveryUrls" => {
            let url = url_arg(&input, "url")?;
            Ok(discovery::build_discovery_urls(&url).into_iter().map(|(u, kind)| json!({ "url": u.as_str(), "type": kind.as_str() })).collect())
        }
        "extractResourceMetadataUrl" => {
            Ok(s(&input, "header").and_then(challenge::resource_metadata_url).map(|u| json!(u.as_str())).unwrap_or(Value::Null))
        }
        "extractWWWAuthenticateParams" => {
            let p = challenge::challenge_params(s(&input, "header").unwrap_or_default());
            Ok(json!({
                "resourceMetadataUrl": p.resource_metadata_url.map(String::from),
                "scope": p.scope,
                "error": p.error,
                "errorDescription": p.error_description,
            }))
        }
        "generateWWWAuthenticateHeader" => {
            let extra: Vec<(String, String)> = input
                .get("additionalParams")
                .and_then(Value::as_object)
                .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()))).collect())
                .unwrap_or_default();
            Ok(json!(challenge::www_authenticate_header(s(&input, "resourceMetadataUrl"), &extra)))
        }
        "extractBearerToken" => Ok(s(&input, "header").and_then(challenge::bearer_token).map(Value::String).unwrap_or(Value::Null)),
        "generateProtectedResourceMetadata" => {
            let c = &input;
            let mut m = json!({
                "resource": c.get("resource").cloned().unwrap_or(Value::Null),
                "authorization_servers": c.get("authorizationServers").cloned().unwrap_or(Value::Null),
                "scopes_supported": c.get("scopesSupported").filter(|v| !v.is_null()).cloned().unwrap_or(json!(["mcp:read", "mcp:write"])),
                "bearer_methods_supported": ["header"],
            });
            if let Some(name) = s(c, "resourceName").filter(|v| !v.is_empty()) {
                m["resource_name"] = json!(name);
            }
            if let Some(doc) = s(c, "resourceDocumentation").filter(|v| !v.is_empty()) {
                m["resource_documentation"] = json!(doc);
            }
            Ok(m)
        }
        "parseErrorResponse" => {
            let status = input.get("status").and_then(Value::as_u64).and_then(|v| u16::try_from(v).ok());
            Ok(token::parse_error_response(status, s(&input, "body").unwrap_or_default()).to_json())
        }
        other => Err(Error::new(Status::InvalidArg, format!("unknown OAuth helper {other}"))),
    }
}
