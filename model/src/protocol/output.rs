//! What a handler does besides changing its own state: it sends, arms and cancels timers,
//! offers client choices and saves its durable storage, all into stateright's `Out<A>`.
//! A handler is generic over the actor `A` it runs inside, so no actor's folder names the
//! world's actor enum: [`Host`] says `A` speaks this protocol, and [`Saves`] that `A`'s
//! storage can hold what this actor saves (the world's `Node` wraps each actor's own
//! storage type in its `NodeStorage`). There is one `A` in every build, so the handlers
//! compile to what they were before they were generic.

use crate::protocol::msg::{ClientChoice, Msg, Timer};
use stateright::actor::Actor;

/// An actor whose messages, timers and client choices are the protocol's: the `A` of the
/// `Out<A>` a handler writes.
pub trait Host: Actor<Msg = Msg, Timer = Timer, Random = ClientChoice> {}

impl<A: Actor<Msg = Msg, Timer = Timer, Random = ClientChoice>> Host for A {}

/// A [`Host`] whose durable storage can hold `S`, what one actor saves (its log, its
/// checkpoint, its epoch): the handler saves `s.into()`.
pub trait Saves<S>: Host<Storage: From<S>> {}

impl<S, A: Host<Storage: From<S>>> Saves<S> for A {}
