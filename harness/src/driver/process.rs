//! The running engine process. Implementation owned by the driver work.
use super::*;

/// A running engine (handshake done).
pub struct Engine {
    pub init: InitializeResult,
}

impl Engine {
    /// Spawn the process (in its own process group) and run `initialize`.
    pub async fn start(
        _spec: &EngineSpec,
        _config: &DriverConfig,
        _init: &InitializeParams,
    ) -> Result<Engine, EngineFault> {
        todo!("driver")
    }

    /// One request/response round trip; serves host requests meanwhile.
    pub async fn call(
        &mut self,
        _method: &str,
        _params: Value,
        _opts: CallOptions,
        _host: &mut dyn HostHandler,
    ) -> Result<Reply, EngineFault> {
        todo!("driver")
    }

    /// Send a notification (e.g. `$/abort`).
    pub async fn notify(&mut self, _method: &str, _params: Value) -> Result<(), EngineFault> {
        todo!("driver")
    }

    /// `shutdown`, wait for exit, kill the process group after the grace period.
    pub async fn shutdown(self) -> ShutdownReport {
        todo!("driver")
    }

    /// Kill the process group now (after a fault). Never leaves a zombie.
    pub async fn kill(self) -> String {
        todo!("driver")
    }

    /// stderr captured so far (tail).
    pub fn stderr_tail(&self) -> String {
        todo!("driver")
    }
}
