// The parsed gateway config with every default applied (see spec.ts for keys, defaults and bounds).

export interface LimiterConfig {
  max_attempts: number;
  window_secs: number;
  lockout_secs: number;
}

export interface GatewayConfig {
  /** The file the config came from (absent for built-in defaults). */
  source?: string;
  display_name: string;
  listen: { address: string; port: number; /** whether `address` was derived rather than written */ derived: boolean };
  tls: { cert_file?: string; key_file?: string };
  data_dir?: string;
  /** This host's name among replicas (sessions and projects name their owner by it). */
  host_name: string;
  database: { url?: string; password_env?: string; password_file?: string; pool_size: number };
  auth: {
    password: {
      pepper_file?: string;
      memory_kib: number;
      time_cost: number;
      parallelism: number;
      max_password_bytes: number;
      max_concurrent_hashes: number;
    };
    pam: { service: string };
    session: { idle_secs: number; absolute_secs: number };
    oauth: {
      access_token_ttl_secs: number;
      refresh_token_absolute_secs: number;
      refresh_token_idle_secs: number;
      device_code_ttl_secs: number;
      device_poll_interval_secs: number;
    };
    rate_limit: LimiterConfig;
    device_rate_limit: LimiterConfig;
    oauth_rate_limit: LimiterConfig;
    oauth_token_rate_limit: LimiterConfig;
    external_url?: string;
    trusted_proxies: string[];
  };
  network: { allow_ips: string[]; deny_ips: string[] };
  daemon_sessions: {
    stop_timeout_secs: number;
    health_check_timeout_secs: number;
    spawn_discover_timeout_secs: number;
    proxy_connect_timeout_secs: number;
    auth_dir?: string;
  };
  services: Record<string, { enabled: boolean; capabilities: Record<string, { enabled: boolean; modes: string[] }> }>;
}
