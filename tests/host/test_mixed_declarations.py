"""A declaration that makes a type and a variable at once: the type goes to
both sides, the variable to the host only, and a later device cell's error
is its own, never an earlier cell's: it names its own cell, In [10] (a
kernel of its own, so that the count is known)."""
from support import kernel, results


def test_type_and_variable_in_one_declaration():
    cells = [
        ("union U { int a; float b; } u;", None),
        ("u.a = 3; u.a", "(int) 3"),
        ("struct P { int x, y; } p = {1, 2};", None),
        ("p.y", "(int) 2"),
        ("enum E { A1, B1 } e = B1;", None),
        ("e", "(enum E) 1"),
        ("typedef struct { int q; } T; T t; t.q = 5; t.q", "(int) 5"),
        ("struct { int n; } anon = {9}; anon.n", "(int) 9"),
        # the device side knows every type, and no host variable
        ("__global__ void kk(union U *v, struct P *w, T *tt, enum E x) { v->a = w->x + A1 + tt->q + x; }", None),
    ]
    with kernel() as k:
        for code, want in cells:
            reply, msgs = k.execute(code)
            assert reply["content"]["status"] == "ok", (code, reply["content"])
            if want:
                assert results(msgs) == [want], (code, msgs)
        # a device cell's error is its own
        reply, _ = k.execute("__global__ void bad(int *p) { p[0] = ; }")
        c = reply["content"]
        assert c["status"] == "error" and c["ename"] == "CompileError", c
        assert "In [10]" in c["evalue"] and "line 1" in c["evalue"], c["evalue"]
        reply, _ = k.execute("__global__ void good(int *p) { p[0] = sizeof(union U) + sizeof(struct P); }")
        assert reply["content"]["status"] == "ok", reply["content"]
        # the host variable never reached the device
        reply, _ = k.execute("__global__ void uses_host_var(int *p) { p[0] = u.a; }")
        assert reply["content"]["status"] == "error", reply["content"]
