/* launcher.c — what an MPI launcher tells a process about its place on the node (see internal.h):
 * its local rank (which GPU the rank takes), how many ranks share the node, its rank in the job,
 * and from those how many ranks share its GPU, whose memory each then budgets a share of. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>

#include "env.h"
#include "internal.h"

/* the first of the variables that is set, as a non-negative integer (Slurm's task counts may
 * read "4(x2)": the leading number); -1 when none is */
static int first_int(const char *const *vars, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v >= '0' && *v <= '9')
            return atoi(v);
    }
    return -1;
}

int cufort_local_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK",
                                       "MPI_LOCALRANKID", "SLURM_LOCALID", "PMI_LOCAL_RANK",
                                       "PMIX_LOCAL_RANK"};
    return first_int(vars, sizeof vars / sizeof *vars);
}

int cufort_local_size(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MV2_COMM_WORLD_LOCAL_SIZE",
                                       "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE", "PMIX_LOCAL_SIZE",
                                       "SLURM_NTASKS_PER_NODE", "SLURM_TASKS_PER_NODE"};
    return first_int(vars, sizeof vars / sizeof *vars);
}

int cufort_world_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK", "PMI_RANK",
                                       "PMIX_RANK", "SLURM_PROCID"};
    return first_int(vars, sizeof vars / sizeof *vars);
}

int cufort_devices_per_rank(void)
{
    int64_t k = 0;
    cufort_env_int("CUFORT_DEVICES_PER_RANK", 1, INT32_MAX, &k);
    return (int)k;
}

/* the ranks r < size whose devices (r, or r*k .. r*k+k-1 with k per rank, round the node)
 * include `device` */
static int ranks_sharing(int device, int devices, int size)
{
    int k = cufort_devices_per_rank(), ranks = 0;
    if (!k)
        return size / devices + (device < size % devices);
    for (int r = 0; r < size; r++)
        ranks += ((device - r * k) % devices + devices) % devices < k;
    return ranks;
}

int cufort_ranks_on_device(int device, int devices)
{
    int64_t given;
    if (cufort_env_int("CUFORT_RANKS_PER_DEVICE", 1, INT32_MAX, &given))
        return (int)given;
    int size = cufort_local_size();
    if (size <= 1 || devices <= 0 || device < 0 || device >= devices)
        return 1;
    int share = ranks_sharing(device, devices, size);
    return share > 0 ? share : 1;
}

size_t cufort_rank_budget(size_t free_bytes, size_t total_bytes, size_t held, int ranks)
{
    size_t avail = free_bytes + held;
    size_t reserve = avail / 16 > ((size_t)256 << 20) ? avail / 16 : (size_t)256 << 20;
    size_t budget = avail > reserve ? avail - reserve : 0;
    if (ranks > 1) {   /* each rank its share of the card, whatever is free when it asks first */
        size_t card = total_bytes > total_bytes / 16 + ((size_t)256 << 20)
                          ? total_bytes - total_bytes / 16 - ((size_t)256 << 20) : 0;
        size_t share = card / (size_t)ranks;
        budget = share < budget ? share : budget;
    }
    return budget;
}

int cufort_usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    return CPU_COUNT(&set);
}
