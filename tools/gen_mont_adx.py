#!/usr/bin/env python3
"""Prints the straight-line MULX/ADCX/ADOX bodies of src/field/mont_x86_64.h
(multiplication) and src/field/mont_sqr_x86_64.h (squaring).

  python3 tools/gen_mont_adx.py 4        # zp_mont_mul_4_adx
  python3 tools/gen_mont_adx.py 6 lean   # zp_mont_mul_6_adx (12 registers)
  python3 tools/gen_mont_adx.py sqr 4    # zp_mont_sqr_4_adx (13 registers)
  python3 tools/gen_mont_adx.py sqr 6    # zp_mont_sqr_6_adx (13 registers)

The headers' comments explain the layouts (CIOS with the no-carry shortcut,
low halves on the OF chain, high halves on the CF chain; for the squaring,
the square then a reduction of its low half); this keeps the unrolled
sequences derived rather than typed. The code needs no compiler flag
(-mbmi2/-madx); mont.h runs it only after src/field/cpu.c has seen BMI2 and
ADX in CPUID.
"""
import sys
def gen(n, lean=False):
    L=[]
    def e(s): L.append(s)
    t=lambda j: "%%[t%d]"%j
    A="%[A]"; X="%[x]"; H="%[h]"
    a=lambda j: "%d(%%[a])"%(8*j)
    p=lambda j: "%d(%%[p])"%(8*j)
    for i in range(n):
        e("movq %d(%%[b]), %%%%rdx"%(8*i))
        e("xorl %k[x], %k[x]")
        if i==0:
            e("mulxq %s, %s, %s"%(a(0),t(0),t(1)))
            for j in range(1,n):
                hi = t(j+1) if j<n-1 else A
                e("mulxq %s, %s, %s"%(a(j),X,hi))
                e("adoxq %s, %s"%(X,t(j)))
            e("movl $0, %k[x]")
            e("adoxq %s, %s"%(X,A))
        else:
            HH = A if lean else H
            for j in range(n-1):
                e("mulxq %s, %s, %s"%(a(j),X,HH))
                e("adoxq %s, %s"%(X,t(j)))
                e("adcxq %s, %s"%(HH,t(j+1)))
            e("mulxq %s, %s, %s"%(a(n-1),X,A))
            e("adoxq %s, %s"%(X,t(n-1)))
            e("movl $0, %k[x]")
            e("adcxq %s, %s"%(X,A))
            e("adoxq %s, %s"%(X,A))
        # reduction
        e("movq %s, %%%%rdx"%t(0))
        e("imulq %[n0], %%rdx")
        e("xorl %k[x], %k[x]")
        if lean:
            e("movq $-1, %[x]")
            e("adcxq %s, %s"%(t(0),X))
            e("mulxq %s, %s, %s"%(p(0),X,t(0)))
        else:
            e("mulxq %s, %s, %s"%(p(0),X,H))
            e("adcxq %s, %s"%(t(0),X))
            e("movq %s, %s"%(H,t(0)))
        e("adcxq %s, %s"%(t(1),t(0)))
        for j in range(1,n):
            e("mulxq %s, %s, %s"%(p(j),X,t(j)))
            e("adoxq %s, %s"%(X,t(j-1)))
            if j<n-1:
                e("adcxq %s, %s"%(t(j+1),t(j)))
        e("movl $0, %k[x]")
        e("adcxq %s, %s"%(X,t(n-1)))
        e("adoxq %s, %s"%(A,t(n-1)))
    # final conditional subtraction
    if lean:
        for j in range(n):
            e("%s %s, %s"%("subq" if j==0 else "sbbq", p(j), t(j)))
        e("sbbq %[x], %[x]")
        e("testq %[x], %[x]")
        for j in range(n):
            e("movq %s, %%%%rdx"%p(j))
            e("cmovzq %[x], %%rdx")
            e("adcxq %%%%rdx, %s"%t(j))
        return "\n".join('        "%s\\n\\t"'%s for s in L)
    S=["%[A]","%[x]","%[h]","%%rdx","%[a]","%[b]"][:n]
    for j in range(n):
        e("movq %s, %s"%(t(j),S[j]))
        e("%s %s, %s"%("subq" if j==0 else "sbbq", p(j), t(j)))
    for j in range(n):
        e("cmovcq %s, %s"%(S[j],t(j)))
    return "\n".join('        "%s\\n\\t"'%s for s in L)

def gen_sqr(n):
    """a^2 (off-diagonal rows, doubled, plus the diagonal), then n
    reduction rounds of the low half t, then t + h and the subtraction of p.
    Words 0..n-1 end in t0..t(n-1), words n..2n-1 in h0.. or, for n = 6,
    partly in the spill slots s0..s3; see the header for the plan."""
    assert n in (4,6)
    L=[]
    def e(s): L.append(s)
    X="%[x]"
    # n = 4 has a register to spare for a constant zero z: clearing the
    # flags is then xor z, z and a carry is taken in with ADCX/ADOX z
    # directly, without reloading x with 0 first
    Z="%[z]" if n==4 else X
    def clear(): e("xorl %k[z], %k[z]" if n==4 else "xorl %k[x], %k[x]")
    def zero():
        if n!=4: e("movl $0, %k[x]")
    a=lambda j: "%d(%%[a])"%(8*j)
    p=lambda j: "%d(%%[a])"%(8*j) if n==6 else "%d(%%[p])"%(8*j)
    T=lambda j: "%%[t%d]"%j
    Hr=lambda j: "%%[h%d]"%j
    S=lambda j: "%%[s%d]"%j
    # where each word of the square lives during the off-diagonal rows
    W={k: T(k) for k in range(1,n)}
    if n==4:
        W.update({4:Hr(0),5:Hr(1),6:Hr(2)})
    else:
        W.update({6:Hr(0),7:Hr(1),8:Hr(2),9:Hr(3),10:T(0)})
    # off-diagonal products a_i*a_j, i<j; row i ends in the new word n+i,
    # whose register holds the high halves until the row's last MULX
    for i in range(n-1):
        top=W[n+i]
        e("movq %s, %%%%rdx"%a(i))
        clear()
        if i==0:
            e("mulxq %s, %s, %s"%(a(1),W[1],W[2]))
            for j in range(2,n):
                e("mulxq %s, %s, %s"%(a(j),X,W[j+1]))
                e("adoxq %s, %s"%(X,W[j]))
            zero()
            e("adoxq %s, %s"%(Z,top))
            continue
        for j in range(i+1,n-1):
            e("mulxq %s, %s, %s"%(a(j),X,top))
            e("adoxq %s, %s"%(X,W[i+j]))
            e("adcxq %s, %s"%(top,W[i+j+1]))
        e("mulxq %s, %s, %s"%(a(n-1),X,top))
        e("adoxq %s, %s"%(X,W[i+n-1]))
        zero()
        if i<n-2:
            e("adcxq %s, %s"%(Z,top))
        e("adoxq %s, %s"%(Z,top))
    # double (CF chain) and add the diagonal a_i^2 (OF chain); h3 takes
    # the high halves and finally word 2n-1
    hi=Hr(3)
    if n==6:
        # words 9 and 10 wait in memory until their turn: that frees t0
        # for word 0 and h3 for the high halves
        e("movq %s, %s"%(W[9],S(0)))
        e("movq %s, %s"%(W[10],S(1)))
    W[0]=T(0)
    clear()
    for i in range(n):
        e("movq %s, %%%%rdx"%a(i))
        if n==6 and i==4:
            W[9]=Hr(0)
            e("movq %s, %s"%(S(0),W[9]))
        if n==6 and i==5:
            W[10]=Hr(1)
            e("movq %s, %s"%(S(1),W[10]))
        if i==0:
            e("mulxq %%%%rdx, %s, %s"%(W[0],hi))
        else:
            e("mulxq %%%%rdx, %s, %s"%(X,hi))
            e("adcxq %s, %s"%(W[2*i],W[2*i]))
            e("adoxq %s, %s"%(X,W[2*i]))
        if i<n-1:
            e("adcxq %s, %s"%(W[2*i+1],W[2*i+1]))
            e("adoxq %s, %s"%(hi,W[2*i+1]))
        else:
            W[2*n-1]=hi
            zero()
            e("adcxq %s, %s"%(Z,hi))
            e("adoxq %s, %s"%(Z,hi))
        if n==6 and i==3:
            # words 6 and 7 are final: park them, their registers take
            # back words 9 and 10
            e("movq %s, %s"%(W[6],S(2)))
            e("movq %s, %s"%(W[7],S(3)))
            W[6]=S(2); W[7]=S(3)
    if n==6:
        e("movq %[pv], %[a]")
    # n reduction rounds of t = t0..t(n-1) (lean: t0's register takes the
    # high half of m*p[0], the carry of t0 + lo(m*p[0]) is t0 != 0)
    for i in range(n):
        e("movq %s, %%%%rdx"%T(0))
        e("imulq %[n0], %%rdx")
        clear()
        e("movq $-1, %[x]")
        e("adcxq %s, %s"%(T(0),X))
        e("mulxq %s, %s, %s"%(p(0),X,T(0)))
        e("adcxq %s, %s"%(T(1),T(0)))
        for j in range(1,n):
            e("mulxq %s, %s, %s"%(p(j),X,T(j)))
            e("adoxq %s, %s"%(X,T(j-1)))
            if j<n-1:
                e("adcxq %s, %s"%(T(j+1),T(j)))
        zero()
        e("adcxq %s, %s"%(Z,T(n-1)))
        e("adoxq %s, %s"%(Z,T(n-1)))
    # t + high half, then subtract p unless that borrows
    for j in range(n):
        e("%s %s, %s"%("addq" if j==0 else "adcq", W[n+j], T(j)))
    C=[W[n+j] for j in range(n) if W[n+j].startswith("%[h")]+[X,"%%rdx"]
    for j in range(n):
        e("movq %s, %s"%(T(j),C[j]))
        e("%s %s, %s"%("subq" if j==0 else "sbbq", p(j), T(j)))
    for j in range(n):
        e("cmovcq %s, %s"%(C[j],T(j)))
    return "\n".join('        "%s\\n\\t"'%s for s in L)

if sys.argv[1]=="sqr":
    print(gen_sqr(int(sys.argv[2])))
else:
    n=int(sys.argv[1]); print(gen(n, len(sys.argv)>2))
