;; A circom 2 calculator whose getFieldNumLen32 answers 8 the first time
;; and 64 after: the glue used to copy 64 words into the host's 16 (a
;; return to an address the module chose, under gdb). Its prime is
;; bn128's, its witness merkle's size (3108 wires), so a daemon sees a
;; circuit for merkle's key. tests/witness/hostile.sh: the command fails
;; with one line, a daemon with it in keys_dir starts and serves the rest.
(module
  (import "runtime" "exceptionHandler" (func $exc (param i32)))
  (memory (export "memory") 2)
  (global $asked (mut i32) (i32.const 0))
  (data (i32.const 2048)
    "\01\00\00\f0\93\f5\e1\43\91\70\b9\79\48\e8\33\28\5d\58\81\81\b6\45\50\b8\29\a0\31\e1\72\4e\64\30")
  (func (export "getVersion") (result i32) (i32.const 2))
  (func (export "getFieldNumLen32") (result i32)
    (global.set $asked (i32.add (global.get $asked) (i32.const 1)))
    (select (i32.const 8) (i32.const 64) (i32.eq (global.get $asked) (i32.const 1))))
  (func (export "getRawPrime") (memory.copy (i32.const 1024) (i32.const 2048) (i32.const 32)))
  (func (export "getWitnessSize") (result i32) (i32.const 3108))
  (func (export "getWitness") (param i32))
  (func (export "readSharedRWMemory") (param $j i32) (result i32)
    (i32.load (i32.add (i32.const 1024) (i32.shl (local.get $j) (i32.const 2)))))
  (func (export "writeSharedRWMemory") (param i32 i32))
  (func (export "init") (param i32))
  (func (export "setInputSignal") (param i32 i32 i32))
  (func (export "getMessageChar") (result i32) (i32.const 0))
)
