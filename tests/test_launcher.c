/* test_launcher.c — what cufort reads from an MPI launcher (core/launcher.c): local rank and size
 * and job rank from each launcher's variables, how many ranks the local-rank rule puts on each GPU,
 * the devices a rank or a process alone spreads its host-array calls over,
 * each rank's share of the card as its device-memory budget, and the staging threads sized to the
 * CPUs the launcher bound the process to. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "staging.h"

static const char *const VARS[] = {
    "OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID",
    "PMI_LOCAL_RANK", "PMIX_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", "MV2_COMM_WORLD_LOCAL_SIZE",
    "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE", "PMIX_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE",
    "SLURM_TASKS_PER_NODE", "OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
    "SLURM_PROCID", "CUFORT_RANKS_PER_DEVICE", "CUFORT_STAGING_THREADS", "CUFORT_DEVICES",
    "CUFORT_DEVICES_PER_RANK"};

static void clear(void)
{
    for (size_t i = 0; i < sizeof VARS / sizeof *VARS; i++)
        unsetenv(VARS[i]);
}

static void ranks(void)
{
    clear();
    CHECK(cufort_local_rank() == -1 && cufort_local_size() == -1 && cufort_world_rank() == -1,
          "no launcher: no ranks", "%d %d %d", cufort_local_rank(), cufort_local_size(), cufort_world_rank());
    CHECK(cufort_ranks_on_device(0, 1) == 1, "no launcher: the GPU is this process's alone", "%d",
          cufort_ranks_on_device(0, 1));
    static const char *const launchers[][4] = {
        {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_RANK", "Open MPI"},
        {"MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_SIZE", "MV2_COMM_WORLD_RANK", "MVAPICH"},
        {"MPI_LOCALRANKID", "MPI_LOCALNRANKS", "PMI_RANK", "MPICH (Hydra)"},
        {"SLURM_LOCALID", "SLURM_NTASKS_PER_NODE", "SLURM_PROCID", "Slurm"},
        {"PMIX_LOCAL_RANK", "PMIX_LOCAL_SIZE", "PMIX_RANK", "PMIx"}};
    for (size_t i = 0; i < sizeof launchers / sizeof *launchers; i++) {
        clear();
        setenv(launchers[i][0], "3", 1);
        setenv(launchers[i][1], "6", 1);
        setenv(launchers[i][2], "27", 1);
        CHECK(cufort_local_rank() == 3 && cufort_local_size() == 6 && cufort_world_rank() == 27,
              ckf("%s: local rank, local size, job rank", launchers[i][3]), "%d %d %d", cufort_local_rank(),
              cufort_local_size(), cufort_world_rank());
    }
    clear();
    setenv("SLURM_TASKS_PER_NODE", "4(x2)", 1);
    CHECK(cufort_local_size() == 4, "Slurm's \"4(x2)\": 4 ranks per node", "%d", cufort_local_size());
    setenv("SLURM_TASKS_PER_NODE", "garbage", 1);
    CHECK(cufort_local_size() == -1, "a size that is no number is ignored", "%d", cufort_local_size());
}

/* the local-rank rule puts rank r on device r % devices */
static void sharing(void)
{
    clear();
    setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "16", 1);
    CHECK(cufort_ranks_on_device(0, 1) == 16, "16 ranks, one GPU: 16 share it", "%d", cufort_ranks_on_device(0, 1));
    int ok = 1;
    for (int d = 0; d < 4; d++)
        ok &= cufort_ranks_on_device(d, 4) == 4;
    CHECK(ok, "16 ranks, 4 GPUs: 4 on each", "%d %d", cufort_ranks_on_device(0, 4), cufort_ranks_on_device(3, 4));
    setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "18", 1);
    CHECK(cufort_ranks_on_device(0, 4) == 5 && cufort_ranks_on_device(1, 4) == 5 &&
              cufort_ranks_on_device(2, 4) == 4 && cufort_ranks_on_device(3, 4) == 4,
          "18 ranks, 4 GPUs: 5, 5, 4, 4 (ranks 0-17 modulo 4)", "%d %d %d %d", cufort_ranks_on_device(0, 4),
          cufort_ranks_on_device(1, 4), cufort_ranks_on_device(2, 4), cufort_ranks_on_device(3, 4));
    setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1);
    CHECK(cufort_ranks_on_device(3, 4) == 1 && cufort_ranks_on_device(0, 4) == 1,
          "2 ranks, 4 GPUs: one rank or none on each (never 0 sharing)", "%d %d", cufort_ranks_on_device(3, 4),
          cufort_ranks_on_device(0, 4));
    setenv("CUFORT_RANKS_PER_DEVICE", "3", 1);
    CHECK(cufort_ranks_on_device(0, 4) == 3, "CUFORT_RANKS_PER_DEVICE overrides the rule", "%d",
          cufort_ranks_on_device(0, 4));
    clear();
}

static void budgets(void)
{
    const size_t G = (size_t)1 << 30, M = (size_t)1 << 20;
    size_t alone = cufort_rank_budget(80 * G, 80 * G, 0, 1);
    CHECK(alone == 75 * G, "one rank: the free memory less a sixteenth", "%zu", alone);
    size_t small = cufort_rank_budget(2 * G, 80 * G, 0, 1);
    CHECK(small == 2 * G - 256 * M, "little free: at least 256 MiB kept back", "%zu", small);
    size_t held = cufort_rank_budget(60 * G, 80 * G, 4 * G, 1);
    CHECK(held == 60 * G + 4 * G - 4 * G, "the thread's own scratch counts as free", "%zu", held);
    size_t each = cufort_rank_budget(80 * G, 80 * G, 0, 16);
    size_t want = (80 * G - 5 * G - 256 * M) / 16;
    CHECK(each == want, "16 ranks on the card: each a sixteenth of it, whatever is free when it asks",
          "%zu, want %zu", each, want);
    CHECK(16 * each + 5 * G <= 80 * G, "16 shares and the reserve fit the card", "%zu", 16 * each);
    size_t later = cufort_rank_budget(3 * G, 80 * G, 0, 16);
    CHECK(later == 3 * G - 256 * M, "a share is also no more than what is free", "%zu", later);
    CHECK(cufort_rank_budget(0, 0, 0, 4) == 0, "no memory: no budget", "%zu", cufort_rank_budget(0, 0, 0, 4));
}

static void affinity(void)
{
    clear();
    int cpus = cufort_usable_cpus();
    CHECK(cpus >= 1, "the affinity mask has CPUs", "%d", cpus);
    cpu_set_t all, one;
    if (sched_getaffinity(0, sizeof all, &all) != 0)
        return;
    int first = 0;
    while (first < CPU_SETSIZE && !CPU_ISSET(first, &all))
        first++;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    if (CHECK(sched_setaffinity(0, sizeof one, &one) == 0, "bound to one CPU", "sched_setaffinity failed")) {
        CHECK(cufort_usable_cpus() == 1 && cufort_staging_threads() == 1,
              "bound to one CPU (an MPI rank under --bind-to core): the caller copies alone",
              "cpus %d, staging threads %d", cufort_usable_cpus(), cufort_staging_threads());
        setenv("CUFORT_STAGING_THREADS", "4", 1);
        CHECK(cufort_staging_threads() == 4, "CUFORT_STAGING_THREADS still rules", "%d", cufort_staging_threads());
        unsetenv("CUFORT_STAGING_THREADS");
        float x[4096];
        for (int i = 0; i < 4096; i++) x[i] = (float)i + 1;
        CHECK_OK(cufort_sscal_host(4096, 2.0f, x, 1), "a host-array call bound to one CPU");
        CHECK(x[4095] == 8192.0f, "a host-array call bound to one CPU: result", "%g", x[4095]);
        sched_setaffinity(0, sizeof all, &all);
    }
    CHECK(cufort_staging_threads() >= 1, "unbound again: at least one staging thread", "%d",
          cufort_staging_threads());
}

/* the devices a host-array call may spread over, on 4 simulated devices from device 0 */
static const char *device_list(void)
{
    static char text[64];
    int devs[CUFORT_MAX_DEVICES], n = 0;
    if (cufort_engine_devices(devs, CUFORT_MAX_DEVICES, &n))
        return "error";
    char *at = text;
    for (int i = 0; i < n; i++)
        at += sprintf(at, "%s%d", i ? "," : "", devs[i]);
    return text;
}

static void devices(void)
{
    clear();
    setenv("CUFORT_HOST_DEVICES", "4", 1);
    if (!CHECK_OK(cufort_init_backend(CUFORT_BACKEND_HOST), "host backend with 4 devices"))
        return;
    CHECK(!strcmp(device_list(), "0,1,2,3"), "a process alone: every device", "%s", device_list());
    setenv("CUFORT_DEVICES", "3,0", 1);
    CHECK(!strcmp(device_list(), "0,3"), "CUFORT_DEVICES=3,0: the caller's own device first", "%s",
          device_list());
    setenv("CUFORT_DEVICES", "2,3", 1);
    CHECK(!strcmp(device_list(), "2,3"), "CUFORT_DEVICES=2,3 from device 0: those two", "%s",
          device_list());
    int first = -1;
    CHECK(cufort_first_device(4, &first) == 0 && first == 2, "CUFORT_DEVICES=2,3: init takes 2",
          "%d", first);
    setenv("CUFORT_DEVICES", "0,x", 1);
    CHECK(!strcmp(device_list(), "error") && strstr(cufort_last_error(), "CUFORT_DEVICES=0,x"),
          "CUFORT_DEVICES=0,x: a clear error", "%s / %s", device_list(), cufort_last_error());
    setenv("CUFORT_DEVICES", "4", 1);
    CHECK(cufort_first_device(4, &first) == CUFORT_INVALID_VALUE, "CUFORT_DEVICES=4 of 4: refused",
          "%s", cufort_last_error());
    unsetenv("CUFORT_DEVICES");
    setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "4", 1);
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
    CHECK(!strcmp(device_list(), "0"), "4 ranks on the node: each its own device", "%s", device_list());
    setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1);
    setenv("CUFORT_DEVICES_PER_RANK", "2", 1);
    CHECK(!strcmp(device_list(), "2,3") && cufort_first_device(4, &first) == 0 && first == 2,
          "2 ranks, 2 devices each: rank 1 takes 2 and 3, and starts on 2", "%s, first %d",
          device_list(), first);
    CHECK(cufort_ranks_on_device(0, 4) == 1 && cufort_ranks_on_device(3, 4) == 1,
          "2 ranks, 2 devices each: one rank on each device", "%d %d", cufort_ranks_on_device(0, 4),
          cufort_ranks_on_device(3, 4));
    setenv("CUFORT_DEVICES_PER_RANK", "3", 1);
    CHECK(!strcmp(device_list(), "0,3,1"), "2 ranks, 3 devices each: rank 1 takes 3, 0, 1 round the node",
          "%s", device_list());
    CHECK(cufort_ranks_on_device(0, 4) == 2 && cufort_ranks_on_device(2, 4) == 1 &&
              cufort_ranks_on_device(3, 4) == 1,
          "2 ranks, 3 devices each: 2 ranks share devices 0 and 1, 1 is on 2 and 3", "%d %d %d",
          cufort_ranks_on_device(0, 4), cufort_ranks_on_device(2, 4), cufort_ranks_on_device(3, 4));
    clear();
    unsetenv("CUFORT_HOST_DEVICES");
    cufort_shutdown();
}

int main(void)
{
    ck_begin("launcher", 60);
    ranks();
    sharing();
    budgets();
    devices();
    affinity();
    cufort_shutdown();
    return ck_end();
}
