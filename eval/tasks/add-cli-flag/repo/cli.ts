const args = process.argv.slice(2);
void args;
console.log("hello");
