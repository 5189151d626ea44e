"""C++ classes and the C++ library in host cells, through jupyter_client:
a class and a std::vector kept as session variables across cells, output of
std::cout and std::cerr as stream messages, a library value as the cell's
result, and C++ that is not interpreted costing the session nothing."""
import support
from support import ok, results, shared_kernel, stdout_of


CLASS_CELL = """struct Acc {
    std::vector<float> xs;
    std::string label = "acc";
    void add(float x) { xs.push_back(x); }
    float sum() const { float s = 0; for (float x : xs) s += x; return s; }
};
Acc acc;
std::vector<int> v = {1, 2, 3};"""


def test_class_and_vector_persist_across_cells():
    with shared_kernel() as k:
        ok(k, CLASS_CELL)
        ok(k, "acc.add(1.5f);\nacc.add(2.0f);\nv.push_back(4);")
        msgs = ok(k, 'std::cout << acc.label << " " << acc.sum() << " " << v.size() << std::endl;\nv')
        assert stdout_of(msgs) == "acc 3.5 4\n"
        assert results(msgs) == ["(std::vector<int>) {1, 2, 3, 4}"]
        # a later cell defines a member function of the class
        ok(k, "struct Later { int n = 2; int twice(); };\nLater later;")
        ok(k, "int Later::twice() { return 2 * n; }")
        msgs = ok(k, "printf(\"%d %zu\\n\", later.twice(), acc.xs.size());")
        assert stdout_of(msgs) == "4 2\n"


def test_cout_and_cerr_are_streams():
    with shared_kernel() as k:
        msgs = ok(k, 'std::cout << std::fixed << std::setprecision(2) << 3.14159 << "\\n";\n'
                     'std::cerr << "warn " << 7 << std::endl;')
        assert stdout_of(msgs, "stdout") == "3.14\n"
        assert stdout_of(msgs, "stderr") == "warn 7\n"
        # the stream keeps its state, as it does through a program
        msgs = ok(k, "std::cout << 2.5 << std::endl;")
        assert stdout_of(msgs) == "2.50\n"


def test_errors_keep_the_session():
    with shared_kernel() as k:
        ok(k, "std::vector<double> keep(3, 1.5);\nstd::string name = \"kept\";")
        # C++ the interpreter refuses runs as a native cell (nvcc, in the GPU worker)
        reply, msgs = k.execute("struct A { int x; };\nstruct B : public A { int y; };", timeout=300)
        c = reply["content"]
        assert "host cells do not interpret inheritance (line 2)" in stdout_of(msgs, "stderr"), stdout_of(msgs, "stderr")
        if support.GPU:
            assert c["status"] == "ok", c
        else:
            assert c["ename"] == "cudaErrorNoDevice" and "compiled, but cannot run" in c["evalue"], c
        reply, _ = k.execute("keep[3] = 2.0;")
        c = reply["content"]
        assert c["ename"] == "RuntimeError" and "keep[3]" in c["evalue"] and "3 elements" in c["evalue"], c
        msgs = ok(k, "std::cout << name << \" \" << keep.size() << \" \" << keep[2] << std::endl;")
        assert stdout_of(msgs) == "kept 3 1.5\n"


def test_scoped_enums_on_both_sides():
    """enum class (with an underlying type) is a type of both sides: kernels
    take it as a parameter, host code and later cells use its scoped names."""
    with shared_kernel() as k:
        msgs = ok(k, "enum class Op : int { Add, Mul };\n"
                     "__global__ void apply(int *p, Op o) { p[0] = o == Op::Add ? p[0] + 1 : p[0] * 2; }\n"
                     'Op o = Op::Mul;\nprintf("%d\\n", (int)o);')
        assert "apply(int *p, Op o)" in stdout_of(msgs, "stdout")
        assert stdout_of(msgs, "stdout").endswith("1\n")
        msgs = ok(k, "struct Step { Op op; int n; };\n"
                     "__device__ int weight(Step s) { return s.op == Op::Mul ? 2 * s.n : s.n; }\n"
                     'Step s = {Op::Add, 3};\nprintf("%d\\n", s.op == Op::Add ? s.n : -1);')
        assert stdout_of(msgs, "stdout").endswith("3\n")


def test_operator_functions_are_the_device_sides():
    """A tutorial's __host__ __device__ vector operators: kernels use them,
    the host cell runs (with a note), and a host-only operator function makes
    its cell native C++, which nvcc compiles."""
    with shared_kernel() as k:
        msgs = ok(k, "__host__ __device__ inline float3 operator+(float3 a, float3 b) "
                     "{ return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }\n"
                     "__global__ void move(float3 *p, float3 v) { p[threadIdx.x] = p[threadIdx.x] + v; }\n"
                     'int steps = 3;\nprintf("%d\\n", steps);')
        out = stdout_of(msgs, "stdout")
        assert "move(float3 *p, float3 v)" in out and out.endswith("3\n"), out
        assert "line 1: host cells do not interpret operator overloading" in stdout_of(msgs, "stderr")
        reply, msgs = k.execute("float2 operator-(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }",
                                timeout=300)
        assert "host cells do not interpret operator overloading" in stdout_of(msgs, "stderr")
        c = reply["content"]
        assert c["status"] == "ok" if support.GPU else c["ename"] == "cudaErrorNoDevice", c
