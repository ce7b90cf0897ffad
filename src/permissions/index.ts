// The permissions room: rule files, the four matchers, the ask contract, and secret protection.
export { loadPermissionGate, type GateOptions, type MatcherName, type PermissionDecision, type PermissionGate, type PermissionRequest } from "./gate.ts";
export { type Classifier, ClassifierError, type ClassifierInput, type ClassifierVerdict, parseVerdict, providerClassifier } from "./classifier.ts";
export { PermissionRuleError, RULE_FILE_NAME, type RuleProblem } from "./rule-file.ts";
export { NO_PERMISSION_TOOLS } from "./rules.ts";
export { type Environment, Secrets } from "./secrets.ts";
export { SecretScanner, StreamRedactor } from "./secret-scan.ts";
