/* fault.c - see fault.h. */
#include "fault.h"
#include "common.h"

static unsigned long fail_at, acquired_so_far;
static long live;

void fault_inject_at(unsigned long n)
{
    fail_at = n;
}

bool fault_strikes(const char *what)
{
    acquired_so_far++;
    if (acquired_so_far != fail_at)
        return false;
    fprintf(stderr, "%s: --fail-at %lu: making acquisition %lu (%s) fail\n", program_name,
            fail_at, acquired_so_far, what);
    return true;
}

unsigned long fault_acquisitions(void)
{
    return acquired_so_far;
}

void resource_acquired(void)
{
    live++;
}

void resource_released(void)
{
    live--;
}

int resources_report(int rc)
{
    printf("\nresources: %lu acquired, %ld still live at exit\n", acquired_so_far, live);
    if (live == 0)
        return rc;
    fprintf(stderr, "%s: %ld resources leaked\n", program_name, live);
    return EXIT_ERROR;
}
