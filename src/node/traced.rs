//! Errors as the face reads them (`lib/errors.cjs`): a napi error whose message is the core's
//! error JSON (`McpError::to_json`, encoded by `core::encode`), an operation's trace inside once
//! the face asked for traces (`NativeClient::observe_operations`; `core::encode::error_json`).

use napi::{Error, Status};

use crate::core::McpError;

/// The napi error of a core error.
pub fn to_napi(e: McpError) -> Error {
    json_error(e.to_json().to_string())
}

/// The napi error whose message is `json`, an error's JSON text (`core::encode`).
pub fn json_error(json: String) -> Error {
    Error::new(Status::GenericFailure, json)
}
