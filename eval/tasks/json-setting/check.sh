jq -e '.server.port == 8080 and .logging.verbose == true and .server.host == "127.0.0.1" and .logging.level == "info" and .name == "demo" and .features == ["search","export"]' config.json >/dev/null
