[ "$(bun cli.ts)" = hello ] && [ "$(bun cli.ts --name Ada)" = "hello Ada" ] && [ "$(bun cli.ts --name 'Grace Hopper')" = "hello Grace Hopper" ]
