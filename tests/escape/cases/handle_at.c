/* name_to_handle_at(key) + open_by_handle_at(): opens by inode handle, no path at all. */
#include "../escape.h"
int main(void) {
    struct file_handle *fh = malloc(sizeof *fh + MAX_HANDLE_SZ);
    fh->handle_bytes = MAX_HANDLE_SZ;
    int mount_id;
    if (name_to_handle_at(AT_FDCWD, secret_path(), fh, &mount_id, 0) != 0) {
        if (errno == EOPNOTSUPP || errno == ENOSYS)
            NA("name_to_handle_at: %s natively (filesystem without handles)", strerror(errno));
        FAILED("name_to_handle_at: %s", strerror(errno));
    }
    int mfd = open(home(), O_RDONLY | O_DIRECTORY);
    if (mfd < 0)
        FAILED("open $HOME: %s", strerror(errno));
    int fd = open_by_handle_at(mfd, fh, O_RDONLY);
    if (fd < 0) {
        if (errno == EPERM && geteuid() != 0)
            NA("open_by_handle_at needs CAP_DAC_READ_SEARCH (not root)");
        FAILED("open_by_handle_at: %s", strerror(errno));
    }
    if (fd_has_marker(fd))
        WON("read the secret by file handle");
    FAILED("no secret");
}
