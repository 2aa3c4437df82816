// Preloaded (`node --import`) into the server `npm start` runs: when scripts/start.mjs goes away
// by any means, even SIGKILL, the IPC channel between them closes, and the server drains and
// exits as on SIGTERM instead of living on unseen on its port.
if (process.channel) {
  process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));
  // Listening for the channel must not keep the server alive once it is done.
  process.channel.unref();
}
