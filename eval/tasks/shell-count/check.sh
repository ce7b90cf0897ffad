printf 'a\n\n \t\nb\n' > /tmp/eval-count-$$.txt
[ -x count.sh ] && [ "$(./count.sh notes.txt | tr -d ' ')" = 3 ] && [ "$(./count.sh /tmp/eval-count-$$.txt | tr -d ' ')" = 2 ]
