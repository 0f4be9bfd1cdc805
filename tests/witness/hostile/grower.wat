;; A circom 2 witness calculator that grows its own memory (issue 31, item
;; 8): its witness is a .wtns file's values (tests/witness/budget.sh puts
;; the file's bytes at 65536 in place of the DATA line), and each input
;; value it is given is a number of MiB by which it grows its linear memory
;; and then writes every page of the new memory, as a circuit with large
;; arrays does. A refused growth raises circom's "Not enough memory"
;; (exceptionHandler(5)), as circom's reserveStackFr does. It has no
;; getInputSignalSize or getInputSize: any signal name is taken.
(module
  (import "runtime" "exceptionHandler" (func $exc (param i32)))
  (import "runtime" "printErrorMessage" (func $perr))
  (import "runtime" "writeBufferMessage" (func $pbuf))
  (import "runtime" "showSharedRWMemory" (func $pshow))
  (memory (export "memory") 4)
  ;;DATA;;
  (func (export "getVersion") (result i32) (i32.const 2))
  (func (export "getFieldNumLen32") (result i32) (i32.const 8))
  (func (export "getRawPrime") (memory.copy (i32.const 1024) (i32.const 65564) (i32.const 32)))
  (func (export "getWitnessSize") (result i32) (i32.load (i32.const 65596)))
  (func (export "getWitness") (param $i i32)
    (memory.copy (i32.const 1024) (i32.add (i32.const 65612) (i32.shl (local.get $i) (i32.const 5))) (i32.const 32)))
  (func (export "readSharedRWMemory") (param $j i32) (result i32)
    (i32.load (i32.add (i32.const 1024) (i32.shl (local.get $j) (i32.const 2)))))
  (func (export "writeSharedRWMemory") (param $j i32) (param $v i32)
    (i32.store (i32.add (i32.const 1024) (i32.shl (local.get $j) (i32.const 2))) (local.get $v)))
  (func (export "init") (param i32))
  (func (export "getMessageChar") (result i32) (i32.const 0))
  (func (export "setInputSignal") (param i32 i32 i32) (local $old i32) (local $at i32) (local $end i32)
    (local.set $old (memory.grow (i32.shl (i32.load (i32.const 1024)) (i32.const 4))))
    (if (i32.eq (local.get $old) (i32.const -1)) (then (call $exc (i32.const 5))))
    (local.set $at (i32.shl (local.get $old) (i32.const 16)))
    (local.set $end (i32.shl (memory.size) (i32.const 16)))
    (block $done
      (loop $touch
        (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
        (i32.store8 (local.get $at) (i32.const 1))
        (local.set $at (i32.add (local.get $at) (i32.const 4096)))
        (br $touch))))
)
