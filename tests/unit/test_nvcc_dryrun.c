/* Reading nvcc's dry run (nvcc_dryrun.h): variables, quotes, $NAME and
 * ${NAME}, steps told by their tool, and what it refuses (a quote left
 * open, a variable never set, a word only a shell would read). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "runtime/program/nvcc_dryrun.h"

static const char *DRY =
    "#$ _NVVM_BRANCH_=nvvm\n"
    "#$ _SPACE_= \n"
    "#$ TOP=/usr/local/cuda/bin/..\n"
    "#$ CICC_PATH=/usr/local/cuda/bin/../nvvm/bin\n"
    "#$ INCLUDES=\"-I/usr/local/cuda/include\"  \n"
    "#$ SYSTEM_INCLUDES=\"-isystem\" \"/usr/local/cuda/include/cccl\"  \n"
    "#$ rm ./cell_dlink.reg.c\n"
    "#$ gcc -std=c++17 -E -x c++ -I\"/tmp/my dir\" 'single $quoted' \"cell.cu\" -o \"./cell.cpp4.ii\" \n"
    "#$ cudafe++ --c++17 --gen_module_id_file --module_id_file_name \"./cell.module_id\" \"./cell.cpp4.ii\" \n"
    "#$ gcc -D__CUDA_ARCH__=750 -E -x c++ \"cell.cu\" -o \"./cell.cpp1.ii\" \n"
    "#$ \"$CICC_PATH/cicc\" --module_id_file_name \"./cell.module_id\" \"./cell.cpp1.ii\" -o \"./cell.ptx\"\n"
    "#$ ${TOP}/bin/ptxas -arch=sm_75 -m64 \"./cell.ptx\" -o \"./cell.sm_75.cubin\" \n"
    "#$ fatbinary --create=\"./cell.fatbin\" \"--image3=kind=elf,sm=75,file=./cell.sm_75.cubin\"\n"
    "#$ gcc -c -x c++ -DFATBINFILE=\"\\\"./cell_dlink.fatbin.c\\\"\" \"./cell.cudafe1.cpp\" -o \"./cell.o\" \n"
    "#$ nvlink -m64 --shared \"./cell.o\" -o \"./cell_dlink.sm_75.cubin\"\n"
    "#$ g++ -fPIC -Wl,--start-group \"./cell.o\" -shared -o \"cell.so\" \n"
    "nvcc warning : something nvcc itself says\n";

static void test_plan(void) {
    nvcc_plan_t p;
    char why[256] = "";
    CHECK(nvcc_plan_parse(DRY, &p, why, sizeof why) == 0);
    CHECK_STR(nvcc_plan_var(&p, "CICC_PATH"), "/usr/local/cuda/bin/../nvvm/bin");
    CHECK_STR(nvcc_plan_var(&p, "_SPACE_"), "");
    CHECK_STR(nvcc_plan_var(&p, "INCLUDES"), "-I/usr/local/cuda/include");
    CHECK_STR(nvcc_plan_var(&p, "SYSTEM_INCLUDES"), "-isystem /usr/local/cuda/include/cccl");
    CHECK(nvcc_plan_var(&p, "NOPE") == NULL);
    CHECK(p.nenv == 6 && p.env[6] == NULL);
    CHECK(p.nsteps == 10);
    if (p.nsteps == 10) {
        static const nvcc_tool_t want[] = {NVCC_RM, NVCC_CPP_HOST, NVCC_CUDAFE, NVCC_CPP_DEVICE, NVCC_CICC,
                                           NVCC_PTXAS, NVCC_FATBINARY, NVCC_CC, NVCC_NVLINK, NVCC_LINK};
        for (int i = 0; i < 10; i++) CHECK(p.steps[i].tool == want[i]);
        const nvcc_step_t *cpp = &p.steps[1];
        CHECK_STR(cpp->argv[5], "-I/tmp/my dir");
        CHECK_STR(cpp->argv[6], "single $quoted");
        CHECK_STR(cpp->argv[7], "cell.cu");
        CHECK(cpp->argv[cpp->argc] == NULL);
        CHECK_STR(p.steps[4].argv[0], "/usr/local/cuda/bin/../nvvm/bin/cicc");
        CHECK_STR(p.steps[5].argv[0], "/usr/local/cuda/bin/../bin/ptxas");
        CHECK_STR(p.steps[7].argv[4], "-DFATBINFILE=\"./cell_dlink.fatbin.c\"");
        CHECK_STR(nvcc_step_option(&p.steps[2], "--module_id_file_name"), "./cell.module_id");
        CHECK_STR(nvcc_step_option(&p.steps[6], "--create"), "./cell.fatbin");
        CHECK(nvcc_step_has(&p.steps[2], "--gen_module_id_file"));
        CHECK(!nvcc_step_has(&p.steps[4], "--gen_module_id_file"));
    }
    CHECK_STR(p.said, "nvcc warning : something nvcc itself says\n");
    nvcc_plan_free(&p);
}

static void refused(const char *text, const char *why_has) {
    nvcc_plan_t p;
    char why[256] = "";
    int rc = nvcc_plan_parse(text, &p, why, sizeof why);
    CHECK(rc == -1);
    if (rc == 0) nvcc_plan_free(&p);
    CHECK(strstr(why, why_has) != NULL);
    if (!strstr(why, why_has)) fprintf(stderr, "  why: %s\n", why);
}

static void test_refused(void) {
    refused("#$ gcc -E \"cell.cu\n", "quote left open");
    refused("#$ gcc -E 'cell.cu\n", "quote left open");
    refused("#$ \"$CICC/cicc\" x\n", "$CICC, which nvcc's dry run did not set");
    refused("#$ A=x y\n#$ gcc $A\n", "would split");
    refused("#$ gcc -E cell.cu | tee x\n", "only a shell would read");
    refused("#$ gcc -E $ x\n", "does not name a variable");
    refused("nvcc fatal : Unknown option '-foo'\n", "named no step");
    refused("", "named no step");
}

static void test_tools(void) {
    char *cc[] = {"/usr/bin/g++-12", "-c", "x.cpp", NULL};
    char *both[] = {"gcc", "-E", "-c", "x.cpp", NULL};
    char *other[] = {"/opt/bin/mystery", "x", NULL};
    CHECK(nvcc_tool_of(cc, 3) == NVCC_CC);
    CHECK(nvcc_tool_of(both, 4) == NVCC_UNKNOWN);
    CHECK(nvcc_tool_of(other, 2) == NVCC_UNKNOWN);
}

int main(void) {
    test_plan();
    test_refused();
    test_tools();
    return check_report();
}
