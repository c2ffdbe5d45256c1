//! How long each of the model's timers runs, in Kafka's terms. The actors arm timers
//! without durations (the exhaustive checker lets any timer fire at any time); the
//! simulator gives each kind the duration a Kafka cluster gives it.

use crate::options::SimOptions;
use sharetxn_model::protocol::msg::Timer;

/// The virtual duration of `timer`.
pub fn timer_ms(options: &SimOptions, timer: &Timer) -> u64 {
    match timer {
        Timer::RequestTimeout(_) => options.request_timeout_ms,
        Timer::TxnTimeout(_) => options.txn_timeout_ms,
        Timer::MarkerRetry(_) => options.marker_retry_ms(),
        Timer::AcquisitionLock(_) => options.acquisition_lock_ms,
        // The persister's and the leader's requests to the share coordinator time out like
        // any request.
        Timer::PersisterTimeout(_)
        | Timer::ReadStateTimeout
        | Timer::StageRetry
        | Timer::ResolvedRetry => options.request_timeout_ms,
        // The draft does not say when `refresh()` runs; the simulator re-reads after
        // `retry.backoff.ms`, soon after the staging became durable.
        Timer::TxnRefresh => options.retry_backoff_ms,
        Timer::TxnHeartbeatExpiry(_) => TXN_HEARTBEAT_EXPIRY_MS,
        // `AddPartitionsToTxnManager` is an `InterBrokerSendThread` with the broker's
        // `request.timeout.ms`, which the model shares with the clients'.
        Timer::VerificationTimeout(_) => options.request_timeout_ms,
        Timer::TxnHeartbeat => TXN_HEARTBEAT_INTERVAL_MS,
        // A reassignment or a broker shutdown: any time, as a request timeout's worth.
        Timer::LeaderMove => options.request_timeout_ms,
        Timer::SharePrune => SHARE_PRUNE_INTERVAL_MS,
        Timer::VoteTimeout => CHECKPOINT_TIMEOUT_MS,
    }
}

/// Flink's `execution.checkpointing.timeout` (its default, 10 minutes): how long the
/// coordinator application waits for the writer's committable.
const CHECKPOINT_TIMEOUT_MS: u64 = 600_000;

/// `share.coordinator.state.topic.prune.interval.ms` (Kafka's default, 5 minutes).
const SHARE_PRUNE_INTERVAL_MS: u64 = 300_000;

/// Nor a heartbeat interval; the simulator borrows the share group's
/// (`group.share.heartbeat.interval.ms`, 5 s), nine heartbeats to one expiry.
const TXN_HEARTBEAT_INTERVAL_MS: u64 = 5_000;

/// KIP-1309's draft names no default liveness interval; the simulator borrows the group
/// protocols' session timeout (`group.consumer.session.timeout.ms`, 45 s), shorter than
/// the transaction timeout, which is the point of the KIP.
const TXN_HEARTBEAT_EXPIRY_MS: u64 = 45_000;

#[cfg(test)]
mod tests {
    use super::*;
    use sharetxn_model::protocol::ids::{ProducerId, TransactionalId};
    use sharetxn_model::protocol::keyed::Keyed;
    use sharetxn_model::protocol::msg::RequestKey;

    #[test]
    fn kafka_defaults() {
        let o = SimOptions::default();
        assert_eq!(
            timer_ms(&o, &Timer::RequestTimeout(RequestKey::Coordinator)),
            30_000
        );
        assert_eq!(timer_ms(&o, &Timer::TxnTimeout(TransactionalId(0))), 60_000);
        assert_eq!(
            timer_ms(&o, &Timer::MarkerRetry(TransactionalId(0))),
            30_100
        );
        assert_eq!(timer_ms(&o, &Timer::AcquisitionLock(0)), 30_000);
        assert_eq!(timer_ms(&o, &Timer::PersisterTimeout(0)), 30_000);
        assert_eq!(
            timer_ms(&o, &Timer::VerificationTimeout(Keyed::first(ProducerId(0)))),
            30_000
        );
    }
}
