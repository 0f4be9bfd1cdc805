# Helpers of the ceremony tests (phase1.sh, phase2.sh), sourced after
# they set W (the work folder): PASS/FAIL lines and their counts, checks
# of a command's status and output, byte edits of snarkjs's binary files.
passed=0
failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
check() { # check NAME COMMAND...: passes when the command succeeds
    local name="$1"; shift
    if "$@" >"$W/out.txt" 2>&1; then pass "$name"; else fail "$name" "$(tail -3 "$W/out.txt")"; fi
}
status() { # status NAME WANT PATTERN COMMAND...: exit status WANT and PATTERN in the output
    local name="$1" want="$2" pat="$3"; shift 3
    "$@" >"$W/out.txt" 2>&1
    local rc=$?
    if [ "$rc" = "$want" ] && grep -q -- "$pat" "$W/out.txt"; then pass "$name ($(grep -m1 -- "$pat" "$W/out.txt"))"
    else fail "$name" "exit $rc (want $want), $(tail -2 "$W/out.txt")"; fi
}
same() { # same NAME A B
    if cmp -s "$2" "$3"; then pass "$1"; else fail "$1" "$2 and $3 differ"; fi
}
# flip FILE OFFSET: xor one byte (offset from the end when negative)
flip() {
    node -e 'const fs=require("fs");const b=fs.readFileSync(process.argv[1]);let o=+process.argv[2];if(o<0)o+=b.length;b[o]^=1;fs.writeFileSync(process.argv[1],b)' "$1" "$2"
}
# section_offset FILE ID: where section ID's data starts
section_offset() {
    node -e 'const b=require("fs").readFileSync(process.argv[1]);const n=b.readUInt32LE(8);let o=12;for(let i=0;i<n;i++){const id=b.readUInt32LE(o),sz=Number(b.readBigUInt64LE(o+4));if(id==+process.argv[2]){console.log(o+12);process.exit(0)}o+=12+sz}process.exit(1)' "$1" "$2"
}
# bad_point FILE SECTION INDEX CURVE KIND: writes point INDEX of section
# SECTION (LEM) as a G1 point off the curve (KIND off) or, on BLS12-381,
# on the curve but outside the prime-order subgroup (KIND outside)
bad_point() {
    node -e '
const fs=require("fs");const [f,sec,idx,curve,kind]=process.argv.slice(1);
const b=fs.readFileSync(f);const n=b.readUInt32LE(8);let o=12,at=-1;
for(let i=0;i<n;i++){const id=b.readUInt32LE(o),sz=Number(b.readBigUInt64LE(o+4));if(id==+sec)at=o+12;o+=12+sz}
const bls=curve=="bls12381";
const p=bls?0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn
           :0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47n;
const n8=bls?48:32,B=bls?4n:3n,R=(1n<<BigInt(8*n8))%p;
const pw=(a,e)=>{let r=1n;a%=p;for(;e>0n;e>>=1n,a=a*a%p)if(e&1n)r=r*a%p;return r};
let x=1n,y;for(;;x++){const v=(x*x*x+B)%p;y=pw(v,(p+1n)/4n);if(y*y%p==v)break}
if(kind=="off")y=(y+1n)%p;
const put=(v,off)=>{v=v*R%p;for(let i=0;i<n8;i++,v>>=8n)b[off+i]=Number(v&255n)};
const q=at+(+idx)*2*n8;put(x,q);put(y,q+n8);fs.writeFileSync(f,b)' "$@"
}
# domain FILE.zkey: the key's domain size
domain() {
    node -e 'const b=require("fs").readFileSync(process.argv[1]);const n=b.readUInt32LE(8);let o=12;for(let i=0;i<n;i++){const id=b.readUInt32LE(o),sz=Number(b.readBigUInt64LE(o+4));if(id==2){const q=b.readUInt32LE(o+12),r=b.readUInt32LE(o+16+q);console.log(b.readUInt32LE(o+28+q+r));process.exit(0)}o+=12+sz}process.exit(1)' "$1"
}
