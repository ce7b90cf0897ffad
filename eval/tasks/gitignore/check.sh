mkdir -p dist && touch dist/a.js app.log sub.log keep.txt .env && mkdir -p node_modules && touch node_modules/x &&
git check-ignore -q dist/a.js && git check-ignore -q app.log && git check-ignore -q sub.log && git check-ignore -q .env && git check-ignore -q node_modules/x && ! git check-ignore -q keep.txt
