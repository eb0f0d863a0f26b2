# What zsh's completion offers for a command line, one candidate per line:
#   zsh -f zsh-complete.zsh SCRIPT 'delivery-sim run --diag'
# SCRIPT is the output of `delivery-sim completions zsh`. An interactive zsh runs in a
# pseudo-terminal (zpty) with compinit and SCRIPT loaded; the line is typed with a TAB, and
# every candidate handed to compadd is printed. The technique is that of
# github.com/Valodim/zsh-capture-completion (MIT), cut down to what the tests read.
zmodload zsh/zpty || exit 3
script=$1
zpty z zsh -f -i
init=$(mktemp)
cat > $init <<INIT
PROMPT=
autoload -Uz compinit
compinit -u -D
source $script
bindkey '^I' complete-word
null-line () { echo -E - \$'\0' }
compprefuncs=( null-line )
comppostfuncs=( null-line exit )
zstyle ':completion:*' list-grouped false
zstyle ':completion:*' insert-tab false
compadd () {
    if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then
        builtin compadd "\$@"
        return \$?
    fi
    typeset -a __hits
    builtin compadd -A __hits "\$@"
    local h
    for h in \$__hits; do echo -E - "<hit>\$h"; done
}
echo ok
INIT
zpty -w z "source $init"
repeat 10; do
    zpty -r z line
    [[ $line == ok* ]] && break
done
zpty -w z "$2"$'\t'
integer seen=0
while zpty -r z line; do
    [[ $line == *$'\0'* ]] && { (( seen++ )) && break || continue }
    (( seen )) && [[ $line == *'<hit>'* ]] && print -r -- ${${line#*<hit>}%$'\r'}
done
rm -f $init
