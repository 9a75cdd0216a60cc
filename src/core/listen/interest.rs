//! What a server's notifications are wanted for (list changes, resource subscriptions), and the
//! `subscriptions/listen` filter that asks for it.

use rmcp::model::SubscriptionFilter;

/// What a server's notifications are wanted for; kept by the connection across sessions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Interest {
    pub tools_list_changed: bool,
    pub prompts_list_changed: bool,
    pub resources_list_changed: bool,
    /// Resources subscribed to, in subscription order.
    pub resources: Vec<String>,
}

/// A kind of list whose changes a handler listens for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    Tools,
    Prompts,
    Resources,
}

impl Interest {
    pub fn is_empty(&self) -> bool {
        *self == Interest::default()
    }

    /// Marks a list's changes as wanted; whether that changed anything.
    pub fn want(&mut self, kind: ListKind) -> bool {
        let flag = match kind {
            ListKind::Tools => &mut self.tools_list_changed,
            ListKind::Prompts => &mut self.prompts_list_changed,
            ListKind::Resources => &mut self.resources_list_changed,
        };
        !std::mem::replace(flag, true)
    }

    /// Adds or removes a resource subscription; whether that changed anything.
    pub fn subscribe(&mut self, uri: &str, subscribe: bool) -> bool {
        let had = self.resources.iter().any(|u| u == uri);
        match (had, subscribe) {
            (false, true) => self.resources.push(uri.to_string()),
            (true, false) => self.resources.retain(|u| u != uri),
            _ => return false,
        }
        true
    }

    pub(super) fn filter(&self) -> SubscriptionFilter {
        let mut builder = SubscriptionFilter::builder();
        if self.tools_list_changed {
            builder = builder.tools_list_changed();
        }
        if self.prompts_list_changed {
            builder = builder.prompts_list_changed();
        }
        if self.resources_list_changed {
            builder = builder.resources_list_changed();
        }
        for uri in &self.resources {
            builder = builder.resource_subscription(uri.clone());
        }
        builder.build()
    }
}
