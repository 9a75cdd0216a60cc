//! The small HTTP exchanges of the OAuth steps: a GET of a metadata document and a POST of a
//! form or JSON body, each read whole (OAuth documents are small) and bounded in time.

use std::time::Duration;

use bytes::Bytes;

use crate::core::net::{HttpRequest, NetClient, NetError};

/// Upper bound for one OAuth exchange.
const TIMEOUT: Duration = Duration::from_secs(30);
/// OAuth documents are small; anything larger is refused.
const MAX_BODY: usize = 4 * 1024 * 1024;

pub struct Reply {
    pub status: u16,
    pub body: Bytes,
    /// A server's DPoP nonce (RFC 9449 §8), when it supplied one.
    pub dpop_nonce: Option<String>,
}

impl Reply {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> Result<serde_json::Value, String> {
        serde_json::from_slice(&self.body).map_err(|e| format!("the response is not JSON: {e}"))
    }
}

pub async fn send(net: &NetClient, request: HttpRequest) -> Result<Reply, NetError> {
    let url = request.url.clone();
    let exchange = async {
        let response = net.send(request).await?;
        let status = response.status;
        let dpop_nonce = response.header(crate::core::auth::dpop::NONCE_HEADER).map(str::to_string);
        let body = response.bytes(MAX_BODY).await?;
        Ok::<_, NetError>(Reply { status, body, dpop_nonce })
    };
    tokio::time::timeout(TIMEOUT, exchange)
        .await
        .map_err(|_| NetError::Timeout(format!("the OAuth request to {url} timed out after {} s", TIMEOUT.as_secs())))?
}

pub async fn get(net: &NetClient, url: url::Url, headers: &[(&str, &str)]) -> Result<Reply, NetError> {
    let mut request = HttpRequest::new("GET", url);
    for (k, v) in headers {
        request.set_header(k, *v);
    }
    send(net, request).await
}
