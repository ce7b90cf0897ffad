! grep -rq getUsr --include=*.ts . && grep -q "export function getUser" users.ts && [ "$(bun main.ts)" = "$(printf 'Hello, Ada!\nGrace')" ]
