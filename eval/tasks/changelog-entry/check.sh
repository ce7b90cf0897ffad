[ "$(cat CHANGELOG.md)" = "$(printf '# Changelog\n\n## Unreleased\n- Fixed a crash on empty input\n- Added a --verbose flag\n\n## 1.2.0\n- Added export to CSV')" ]
