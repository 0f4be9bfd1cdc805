;; A circom 2 calculator with a start function that grows its memory by
;; 1,000 pages (64 MB) and writes them, before the host could set a limit:
;; tests/test_witness_hostile.c expects the growth refused (an instance
;; has only its declared pages until the host sets its limit). circom's
;; calculators have no start function.
(module
  (import "runtime" "exceptionHandler" (func $exc (param i32)))
  (memory (export "memory") 2)
  (func $start (local $at i32)
    (if (i32.ne (memory.grow (i32.const 1000)) (i32.const -1))
      (then
        (local.set $at (i32.const 131072))
        (block $done
          (loop $touch
            (br_if $done (i32.ge_u (local.get $at) (i32.shl (memory.size) (i32.const 16))))
            (i32.store8 (local.get $at) (i32.const 1))
            (local.set $at (i32.add (local.get $at) (i32.const 4096)))
            (br $touch))))))
  (start $start)
  (func (export "getVersion") (result i32) (i32.const 2))
  (func (export "getFieldNumLen32") (result i32) (i32.const 8))
  (func (export "getRawPrime"))
  (func (export "getWitnessSize") (result i32) (i32.const 1))
  (func (export "getWitness") (param i32))
  (func (export "readSharedRWMemory") (param i32) (result i32) (i32.const 0))
  (func (export "writeSharedRWMemory") (param i32 i32))
  (func (export "init") (param i32))
  (func (export "setInputSignal") (param i32 i32 i32))
  (func (export "getMessageChar") (result i32) (i32.const 0))
)
