//! How protocol features sit above the connection without the connection knowing them: a
//! feature keeps its state in a [`Slots`] entry (per connection, or per session on `Live`) and,
//! if it must act when the lifecycle moves, gives the connection a [`Layer`] whose hooks run at
//! those moments. The layers a connection carries are listed in `core::features`.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::future::{BoxFuture, FutureExt};

use super::{Connection, Live};

/// A protocol feature's hooks into a connection's lifecycle. Each has a no-op default.
pub trait Layer: Send + Sync {
    /// A new session became the connection's live one (first connect or reconnect). Runs while
    /// the connection's state is held: a hook must not wait for the connection.
    fn opened(&self, _conn: &Connection, _live: &Arc<Live>) {}

    /// `reconnect()` kept a stateless (2026-07-28 HTTP) session: what the layer holds open on
    /// it is to be reopened. `reconnect()` returns once every layer's reopening is done (each
    /// bounded by its layer), so what the user does next finds it open.
    fn renewed<'a>(&'a self, _conn: &'a Connection, _live: &'a Arc<Live>) -> BoxFuture<'a, ()> {
        futures::future::ready(()).boxed()
    }

    /// A session is about to be closed.
    fn closing(&self, _live: &Live) {}

    /// `disconnect()` was called: the session is still live while this runs (bounded by the layer).
    fn disconnecting<'a>(&'a self, _conn: &'a Connection) -> BoxFuture<'a, ()> {
        futures::future::ready(()).boxed()
    }

    /// `disconnect()` closed the session.
    fn disconnected(&self, _conn: &Connection) {}
}

/// State of the layers, one value per type, made on first use.
#[derive(Default)]
pub struct Slots(Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>);

impl Slots {
    /// The `T` of this owner, made (`T::default()`) if there is none yet.
    pub fn get<T: Any + Send + Sync + Default>(&self) -> Arc<T> {
        let mut slots = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let slot = slots.entry(TypeId::of::<T>()).or_insert_with(|| Arc::new(T::default())).clone();
        slot.downcast::<T>().unwrap_or_else(|_| unreachable!("a slot holds the type it is keyed by"))
    }

    /// The `T` of this owner if one was made.
    pub fn peek<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        let slots = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        slots.get(&TypeId::of::<T>()).cloned().and_then(|slot| slot.downcast::<T>().ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_is_made_once_per_type() {
        #[derive(Default)]
        struct Counter(std::sync::atomic::AtomicU32);
        let slots = Slots::default();
        assert!(slots.peek::<Counter>().is_none());
        slots.get::<Counter>().0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        assert_eq!(slots.get::<Counter>().0.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert!(slots.peek::<Counter>().is_some());
        assert!(slots.peek::<String>().is_none());
    }
}
