// What `react-devtools-core` resolves to in the compiled binary. Ink loads that package only when
// DEV=true, to connect to a React DevTools window; the binary does not ship DevTools, so connecting is
// deliberately a no-op there instead of a module-not-found crash.
export default { initialize() {}, connectToDevTools() {} };
