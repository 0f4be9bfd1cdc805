#!/usr/bin/env python3
"""Prints the straight-line MULX/ADCX/ADOX bodies of src/field/mont_x86_64.h.

  python3 tools/gen_mont_adx.py 4        # zp_mont_mul_4_adx
  python3 tools/gen_mont_adx.py 6 lean   # zp_mont_mul_6_adx (12 registers)

The header's comment explains the layout (CIOS with the no-carry shortcut,
low halves on the OF chain, high halves on the CF chain); this keeps the
unrolled sequences derived rather than typed.
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
n=int(sys.argv[1]); print(gen(n, len(sys.argv)>2))
