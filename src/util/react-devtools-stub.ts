// Ink imports react-devtools-core only when DEV=true; the compiled binary maps the module here so it resolves.
export default { initialize() {}, connectToDevTools() {} };
