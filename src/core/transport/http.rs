//! Streamable HTTP transport over rmcp's reqwest client.

use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;

use crate::core::config::HttpSpec;
use crate::core::error::{ErrorKind, McpError, Result};

pub type HttpTransport = StreamableHttpClientTransport<reqwest::Client>;

pub fn streamable(server: &str, spec: &HttpSpec) -> Result<HttpTransport> {
    let mut headers = reqwest::header::HeaderMap::new();
    for (k, v) in &spec.headers {
        let name = reqwest::header::HeaderName::from_bytes(k.as_bytes())
            .map_err(|e| McpError::invalid_config(server, format!("Invalid header name \"{k}\" for server \"{server}\": {e}")))?;
        let value = reqwest::header::HeaderValue::from_str(v)
            .map_err(|e| McpError::invalid_config(server, format!("Invalid value for header \"{k}\" of server \"{server}\": {e}")))?;
        headers.insert(name, value);
    }
    let client = reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .map_err(|e| McpError::new(ErrorKind::ConnectFailed, server, format!("HTTP client: {e}")))?;
    let config = StreamableHttpClientTransportConfig::with_uri(spec.url.as_str());
    Ok(StreamableHttpClientTransport::with_client(client, config))
}
