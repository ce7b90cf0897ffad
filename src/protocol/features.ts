// Feature ids (client-protocol.md, Feature ids). Clients enable a feature only when it is advertised.

/** What the session daemon advertises in GET /sync. */
export const DAEMON_FEATURES = [
  "session.sync.v1",
  "session.history.v1",
  "session.attachments.v1",
  "session.targeted-mutations.v1",
  "daemon.catalog.v1",
] as const;

/** What the gateway's fleet catalog advertises. */
export const FLEET_FEATURES = ["fleet_catalog.v1", "fleet_events.v1", "session_history.v1"] as const;
