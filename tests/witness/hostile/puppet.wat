;; A circom 2 witness calculator with circom's export and import shape whose
;; every answer can be scripted: tests/test_witness_hostile.c and
;; fuzz/fuzz_glue.c write a script of 32-bit words into its memory before
;; the first call (zp_witness_module_open_hooked), and each export, when
;; called, takes the next word as an action:
;;   0 (or the script ended)  circom's answer: version 2, 8 words a value,
;;                            the bn128 prime, 3 wires (wire i = i), ...
;;   1  answer the word after it instead (the hostile value)
;;   2  trap (unreachable)
;;   3  exceptionHandler(the word after it)
;;   4  printErrorMessage, then as 0     5  writeBufferMessage, then as 0
;;   6  showSharedRWMemory, then as 0
;;   7  memory.grow(the word after it); on -1 exceptionHandler(5), as
;;      circom's reserveStackFr does; then as 0
;;   8  recurse without end (the call depth limit traps)
;;   9  load from the address the word after it gives
;; Layout: 0 the script cursor, 4 the script's length in bytes, 1024 the
;; shared words, 2048 the prime, 65536 the script (at most 65536 bytes).
(module
  (import "runtime" "exceptionHandler" (func $exc (param i32)))
  (import "runtime" "printErrorMessage" (func $perr))
  (import "runtime" "writeBufferMessage" (func $pbuf))
  (import "runtime" "showSharedRWMemory" (func $pshow))
  (memory (export "memory") 2)
  (data (i32.const 2048)
    "\01\00\00\f0\93\f5\e1\43\91\70\b9\79\48\e8\33\28\5d\58\81\81\b6\45\50\b8\29\a0\31\e1\72\4e\64\30")

  ;; the next script word, 0 once it ends
  (func $next (result i32) (local $c i32)
    (local.set $c (i32.load (i32.const 0)))
    (if (result i32) (i32.gt_u (i32.add (local.get $c) (i32.const 4)) (i32.load (i32.const 4)))
      (then (i32.const 0))
      (else
        (i32.store (i32.const 0) (i32.add (local.get $c) (i32.const 4)))
        (i32.load (i32.add (i32.const 65536) (local.get $c))))))

  (func $forever (param $n i32) (result i32)
    (call $forever (i32.add (local.get $n) (i32.const 1))))

  ;; takes an action word; returns 1 when the caller answers the next
  ;; word, 0 when it gives circom's answer
  (func $act (result i32) (local $a i32)
    (local.set $a (call $next))
    (block $done
      (br_if $done (i32.eqz (local.get $a)))
      (if (i32.eq (local.get $a) (i32.const 1)) (then (return (i32.const 1))))
      (if (i32.eq (local.get $a) (i32.const 2)) (then unreachable))
      (if (i32.eq (local.get $a) (i32.const 3)) (then (call $exc (call $next)) (br $done)))
      (if (i32.eq (local.get $a) (i32.const 4)) (then (call $perr) (br $done)))
      (if (i32.eq (local.get $a) (i32.const 5)) (then (call $pbuf) (br $done)))
      (if (i32.eq (local.get $a) (i32.const 6)) (then (call $pshow) (br $done)))
      (if (i32.eq (local.get $a) (i32.const 7))
        (then
          (if (i32.eq (memory.grow (call $next)) (i32.const -1)) (then (call $exc (i32.const 5))))
          (br $done)))
      (if (i32.eq (local.get $a) (i32.const 8)) (then (drop (call $forever (i32.const 0))) (br $done)))
      (if (i32.eq (local.get $a) (i32.const 9)) (then (drop (i32.load (call $next))) (br $done))))
    (i32.const 0))

  ;; answer v unless the script says otherwise
  (func $answer (param $v i32) (result i32)
    (if (result i32) (call $act) (then (call $next)) (else (local.get $v))))

  (func (export "getVersion") (result i32) (call $answer (i32.const 2)))
  (func (export "getMinorVersion") (result i32) (call $answer (i32.const 1)))
  (func (export "getPatchVersion") (result i32) (call $answer (i32.const 0)))
  (func (export "getSharedRWMemoryStart") (result i32) (call $answer (i32.const 1024)))
  (func (export "getFieldNumLen32") (result i32) (call $answer (i32.const 8)))
  (func (export "getWitnessSize") (result i32) (call $answer (i32.const 3)))
  (func (export "getInputSize") (result i32) (call $answer (i32.const 0)))
  (func (export "getInputSignalSize") (param i32 i32) (result i32) (call $answer (i32.const 1)))
  (func (export "getMessageChar") (result i32) (call $answer (i32.const 0)))
  (func (export "readSharedRWMemory") (param $j i32) (result i32)
    (call $answer (i32.load (i32.add (i32.const 1024) (i32.shl (local.get $j) (i32.const 2))))))
  (func (export "writeSharedRWMemory") (param $j i32) (param $v i32)
    (drop (call $act))
    (i32.store (i32.add (i32.const 1024) (i32.shl (local.get $j) (i32.const 2))) (local.get $v)))
  (func (export "getRawPrime")
    (drop (call $act))
    (memory.copy (i32.const 1024) (i32.const 2048) (i32.const 32)))
  (func (export "init") (param i32) (drop (call $act)))
  (func (export "setInputSignal") (param i32 i32 i32) (drop (call $act)))
  (func (export "getWitness") (param $i i32)
    (drop (call $act))
    (memory.fill (i32.const 1024) (i32.const 0) (i32.const 32))
    (i32.store (i32.const 1024) (local.get $i)))
)
