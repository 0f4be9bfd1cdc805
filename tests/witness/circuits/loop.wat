;; A hostile witness calculator in circom 2's ABI (docs/witness.md, "The
;; ABI"): bn128, 3108 witness values (the wire count of
;; examples/merkle/bn128/merkle.zkey, so that it pairs with that key), one
;; input signal of any name. The input's value picks what it does:
;;   0  returns at once: the witness is 1, 0, 0, ...
;;   1  loops for ever in setInputSignal, with no call in the loop
;;   2  recurses for ever in setInputSignal: f(d) calls f(d - 1) twice,
;;      500 deep (under the 1000 frames allowed), 2^500 calls, no loop
;;   3  loops for ever in getWitness
;; tests/witness/stop.sh and tests/server/stop.sh build it with wat2wasm.
(module
  (import "runtime" "exceptionHandler" (func $exceptionHandler (param i32)))
  (import "runtime" "printErrorMessage" (func $printErrorMessage))
  (import "runtime" "writeBufferMessage" (func $writeBufferMessage))
  (import "runtime" "showSharedRWMemory" (func $showSharedRWMemory))
  (memory (export "memory") 1 1)
  ;; the prime, least significant word first, at 64; the shared memory at 0
  (data (i32.const 64)
    "\01\00\00\f0\93\f5\e1\43\91\70\b9\79\48\e8\33\28\5d\58\81\81\b6\45\50\b8\29\a0\31\e1\72\4e\64\30")
  (func (export "getVersion") (result i32) (i32.const 2))
  (func (export "getMinorVersion") (result i32) (i32.const 1))
  (func (export "getPatchVersion") (result i32) (i32.const 6))
  (func (export "getFieldNumLen32") (result i32) (i32.const 8))
  (func (export "getRawPrime")
    (memory.copy (i32.const 0) (i32.const 64) (i32.const 32)))
  (func (export "readSharedRWMemory") (param $j i32) (result i32)
    (i32.load (i32.shl (i32.and (local.get $j) (i32.const 7)) (i32.const 2))))
  (func (export "writeSharedRWMemory") (param $j i32) (param $v i32)
    (i32.store (i32.shl (i32.and (local.get $j) (i32.const 7)) (i32.const 2)) (local.get $v)))
  (func (export "init") (param $sanity i32)
    (i32.store (i32.const 128) (i32.const 0)))
  (func (export "getInputSignalSize") (param $hmsb i32) (param $hlsb i32) (result i32) (i32.const 1))
  (func (export "getInputSize") (result i32) (i32.const 1))
  (func (export "getWitnessSize") (result i32) (i32.const 3108))
  (func $recurse (param $d i32)
    (if (i32.eqz (local.get $d)) (then (return)))
    (call $recurse (i32.sub (local.get $d) (i32.const 1)))
    (call $recurse (i32.sub (local.get $d) (i32.const 1))))
  (func (export "setInputSignal") (param $hmsb i32) (param $hlsb i32) (param $i i32)
    (local $n i32)
    (i32.store (i32.const 128) (i32.load (i32.const 0)))
    (if (i32.eq (i32.load (i32.const 128)) (i32.const 1))
      (then (loop $spin
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $spin))))
    (if (i32.eq (i32.load (i32.const 128)) (i32.const 2))
      (then (call $recurse (i32.const 500)))))
  (func (export "getWitness") (param $i i32)
    (local $n i32)
    (if (i32.eq (i32.load (i32.const 128)) (i32.const 3))
      (then (loop $spin
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $spin))))
    (memory.fill (i32.const 0) (i32.const 0) (i32.const 32))
    (i32.store (i32.const 0) (i32.eqz (local.get $i))))
  (func (export "getMessageChar") (result i32) (i32.const 0))
)
