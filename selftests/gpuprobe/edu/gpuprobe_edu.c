// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe_edu: a test driver for QEMU's "edu" PCI device (1234:11e8).
 *
 * It gives the selftests a device whose interrupts and DMA are exactly known:
 * on request it raises N MSIs one at a time (each waited for, so none merge)
 * and moves buffers through the DMA API through the device's DMA window.
 *
 * Control, per device, in debugfs under gpuprobe_edu/<pci-name>/:
 *   irq    write N: raise N interrupts, each one handled before the next
 *   irq_sleep  write N: as irq, but the writer is on a wait queue and not
 *          running before each raise, so every handler wakes it (one
 *          sched_wakeup per interrupt, however soon the interrupt comes; with
 *          irq it comes before the wait as often as not, and wakes no one)
 *   storm  write N: raise N interrupts back to back (some may merge)
 *   dma    write "to_device|from_device|verify SIZE": one mapping of SIZE
 *          bytes, moved in 2 KiB device transfers; "coherent SIZE": a
 *          dma_alloc_coherent() buffer, one transfer into it, freed;
 *          "fault SIZE": a transfer to a just-unmapped address (an IOMMU
 *          fault; nothing reaches memory)
 *   mapbench  write "N SIZE [GAP_NS]": N dma_map_single()/dma_unmap_single()
 *          pairs of one SIZE buffer, no transfer (the cost of mapping
 *          alone); with GAP_NS (at most 1000000), a busy wait of that long
 *          after each pair: a burst at a chosen rate
 *   mapsg  write "N SIZE": one dma_map_sg() of N segments that all point at
 *          one SIZE buffer (N at most 131072, SIZE at most the device's
 *          maximum segment size), unmapped if it succeeded; with
 *          N * SIZE past the DMA mask the IOMMU has no room: a failed map_sg
 *          (counted in map_sg_failed), the write still succeeds
 *   stats  read: counters of everything done so far
 *   hold_lock  write MS: hold the device lock for MS milliseconds (at most
 *          10000), as a slow probe or unbind would: what waits for it
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/sched.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/wait.h>

/* renamed in 6.8; the old name went in 6.12 */
#ifndef PCI_IRQ_INTX
#define PCI_IRQ_INTX		PCI_IRQ_LEGACY
#endif

#define EDU_VENDOR		0x1234
#define EDU_DEVICE		0x11e8
#define EDU_IDENT		0x010000ed

#define EDU_REG_IDENT		0x00
#define EDU_REG_IRQ_STATUS	0x24
#define EDU_REG_IRQ_RAISE	0x60
#define EDU_REG_IRQ_ACK		0x64
#define EDU_REG_DMA_SRC		0x80
#define EDU_REG_DMA_DST		0x88
#define EDU_REG_DMA_COUNT	0x90
#define EDU_REG_DMA_CMD		0x98

#define EDU_DMA_RUN		0x1
#define EDU_DMA_TO_RAM		0x2
#define EDU_DMA_IRQ		0x4
#define EDU_DMA_IRQ_VALUE	0x100
#define EDU_RAISE_VALUE		0x1

/*
 * The device's internal DMA buffer is 4 KiB at this device-side address, but
 * QEMU (7.2) refuses a transfer that ends exactly at its end -- and refuses
 * with a hw_error that kills the VM -- so transfers use half of it.
 */
#define EDU_DMA_WINDOW		0x40000
#define EDU_DMA_WINDOW_SIZE	2048
/* QEMU masks DMA addresses to 28 bits by default; vmtest.sh sets 32 */
#define EDU_DMA_MASK_BITS	32
#define EDU_DMA_MAX_SIZE	SZ_1M
#define EDU_IRQ_TIMEOUT		msecs_to_jiffies(5000)

struct edu_stats {
	u64 irq_raised;
	u64 irq_handled;
	u64 dma_irqs;
	u64 dma_maps;
	u64 dma_unmaps;
	u64 dma_bytes_to_device;
	u64 dma_bytes_from_device;
	u64 dma_transfers;
	u64 verify_failures;
	u64 dma_faults_requested;
	u64 map_sg;
	u64 map_sg_failed;
};

struct edu_dev {
	struct pci_dev *pdev;
	void __iomem *mmio;
	int irq;
	struct mutex lock;		/* one request at a time */
	struct completion done;
	wait_queue_head_t irq_wq;	/* irq_sleep's writer */
	struct dentry *dir;
	struct edu_stats stats;
	atomic64_t handled;
	atomic64_t dma_irqs;
};

static struct dentry *edu_debugfs_root;

/*
 * intx=1: the legacy INTx line instead of MSI, requested shared, with a
 * second handler on the same line that belongs to another owner (the
 * kernel's no_action(), which claims nothing): what a shared line looks
 * like to a tracer, where every interrupt runs every handler on the line.
 */
static bool intx;
module_param(intx, bool, 0444);
MODULE_PARM_DESC(intx, "use the INTx line, shared with a do-nothing handler");

static int edu_neighbour_cookie;

static irqreturn_t edu_irq(int irq, void *data)
{
	struct edu_dev *edu = data;
	u32 status = ioread32(edu->mmio + EDU_REG_IRQ_STATUS);

	if (!status)
		return IRQ_NONE;
	iowrite32(status, edu->mmio + EDU_REG_IRQ_ACK);
	if (status & EDU_DMA_IRQ_VALUE)
		atomic64_inc(&edu->dma_irqs);
	atomic64_inc(&edu->handled);
	complete(&edu->done);
	wake_up(&edu->irq_wq);
	return IRQ_HANDLED;
}

enum edu_raise_mode { EDU_RAISE_WAIT, EDU_RAISE_ASLEEP, EDU_RAISE_STORM };

/*
 * One interrupt raised by a writer already asleep: on the wait queue and
 * TASK_UNINTERRUPTIBLE before the raise, so the handler's wake_up() has it
 * to wake even when the interrupt comes during the MMIO write itself.
 */
static int edu_raise_asleep(struct edu_dev *edu)
{
	long left = EDU_IRQ_TIMEOUT;
	DEFINE_WAIT(wait);

	prepare_to_wait(&edu->irq_wq, &wait, TASK_UNINTERRUPTIBLE);
	iowrite32(EDU_RAISE_VALUE, edu->mmio + EDU_REG_IRQ_RAISE);
	edu->stats.irq_raised++;
	while (!completion_done(&edu->done) && left) {
		left = schedule_timeout(left);
		prepare_to_wait(&edu->irq_wq, &wait, TASK_UNINTERRUPTIBLE);
	}
	finish_wait(&edu->irq_wq, &wait);
	return completion_done(&edu->done) ? 0 : -ETIMEDOUT;
}

static int edu_raise_irqs(struct edu_dev *edu, u64 count,
			  enum edu_raise_mode mode)
{
	u64 i;
	int err;

	for (i = 0; i < count; i++) {
		reinit_completion(&edu->done);
		if (mode == EDU_RAISE_ASLEEP) {
			err = edu_raise_asleep(edu);
			if (err)
				return err;
			continue;
		}
		iowrite32(EDU_RAISE_VALUE, edu->mmio + EDU_REG_IRQ_RAISE);
		edu->stats.irq_raised++;
		if (mode == EDU_RAISE_WAIT &&
		    !wait_for_completion_timeout(&edu->done, EDU_IRQ_TIMEOUT))
			return -ETIMEDOUT;
		if (mode == EDU_RAISE_STORM)
			cond_resched();
	}
	return 0;
}

/* One device transfer of at most the window size, waited for by interrupt. */
static int edu_dma_chunk(struct edu_dev *edu, dma_addr_t addr, u32 len,
			 bool to_device)
{
	u64 src = to_device ? addr : EDU_DMA_WINDOW;
	u64 dst = to_device ? EDU_DMA_WINDOW : addr;
	u32 cmd = EDU_DMA_RUN | EDU_DMA_IRQ | (to_device ? 0 : EDU_DMA_TO_RAM);

	reinit_completion(&edu->done);
	writeq(src, edu->mmio + EDU_REG_DMA_SRC);
	writeq(dst, edu->mmio + EDU_REG_DMA_DST);
	writeq(len, edu->mmio + EDU_REG_DMA_COUNT);
	writeq(cmd, edu->mmio + EDU_REG_DMA_CMD);
	if (!wait_for_completion_timeout(&edu->done, EDU_IRQ_TIMEOUT))
		return -ETIMEDOUT;
	edu->stats.dma_transfers++;
	return 0;
}

static int edu_dma_move(struct edu_dev *edu, void *buf, size_t size,
			bool to_device)
{
	enum dma_data_direction dir = to_device ? DMA_TO_DEVICE :
						  DMA_FROM_DEVICE;
	struct device *dev = &edu->pdev->dev;
	dma_addr_t addr;
	size_t off;
	int err = 0;

	addr = dma_map_single(dev, buf, size, dir);
	if (dma_mapping_error(dev, addr))
		return -ENOMEM;
	edu->stats.dma_maps++;

	for (off = 0; off < size && !err; off += EDU_DMA_WINDOW_SIZE)
		err = edu_dma_chunk(edu, addr + off,
				    min_t(size_t, size - off,
					  EDU_DMA_WINDOW_SIZE), to_device);

	dma_unmap_single(dev, addr, size, dir);
	edu->stats.dma_unmaps++;
	if (!err) {
		if (to_device)
			edu->stats.dma_bytes_to_device += size;
		else
			edu->stats.dma_bytes_from_device += size;
	}
	return err;
}

/*
 * verify: every 2 KiB chunk goes RAM -> device -> RAM through two separate
 * mappings (one per direction, each mapped once for the whole size) and the
 * copy must come back equal.
 */
static int edu_dma_verify(struct edu_dev *edu, size_t size)
{
	struct device *dev = &edu->pdev->dev;
	dma_addr_t src_addr, dst_addr;
	u8 *src, *dst;
	size_t off, i;
	int err = -ENOMEM;

	src = kmalloc(size, GFP_KERNEL);
	dst = kzalloc(size, GFP_KERNEL);
	if (!src || !dst)
		goto out_free;
	for (i = 0; i < size; i++)
		src[i] = (u8)(i * 7 + 3);

	src_addr = dma_map_single(dev, src, size, DMA_TO_DEVICE);
	if (dma_mapping_error(dev, src_addr))
		goto out_free;
	dst_addr = dma_map_single(dev, dst, size, DMA_FROM_DEVICE);
	if (dma_mapping_error(dev, dst_addr))
		goto out_unmap_src;
	edu->stats.dma_maps += 2;

	err = 0;
	for (off = 0; off < size && !err; off += EDU_DMA_WINDOW_SIZE) {
		u32 len = min_t(size_t, size - off, EDU_DMA_WINDOW_SIZE);

		err = edu_dma_chunk(edu, src_addr + off, len, true);
		if (!err)
			err = edu_dma_chunk(edu, dst_addr + off, len, false);
	}

	dma_unmap_single(dev, dst_addr, size, DMA_FROM_DEVICE);
	edu->stats.dma_unmaps++;
out_unmap_src:
	dma_unmap_single(dev, src_addr, size, DMA_TO_DEVICE);
	edu->stats.dma_unmaps++;
	if (!err) {
		edu->stats.dma_bytes_to_device += size;
		edu->stats.dma_bytes_from_device += size;
		if (memcmp(src, dst, size)) {
			edu->stats.verify_failures++;
			err = -EIO;
		}
	}
out_free:
	kfree(dst);
	kfree(src);
	return err;
}

static int edu_dma_coherent(struct edu_dev *edu, size_t size)
{
	struct device *dev = &edu->pdev->dev;
	dma_addr_t addr;
	void *buf;
	int err;

	buf = dma_alloc_coherent(dev, size, &addr, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	err = edu_dma_chunk(edu, addr, min_t(size_t, size, EDU_DMA_WINDOW_SIZE),
			    false);
	dma_free_coherent(dev, size, buf, addr);
	if (!err)
		edu->stats.dma_bytes_from_device +=
			min_t(size_t, size, EDU_DMA_WINDOW_SIZE);
	return err;
}

/* The IOMMU refuses a transfer to an address that is no longer mapped. */
static int edu_dma_fault(struct edu_dev *edu, size_t size)
{
	struct device *dev = &edu->pdev->dev;
	dma_addr_t addr;
	void *buf;
	int err;

	buf = kzalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	addr = dma_map_single(dev, buf, size, DMA_FROM_DEVICE);
	err = dma_mapping_error(dev, addr);
	if (!err) {
		dma_unmap_single(dev, addr, size, DMA_FROM_DEVICE);
		edu->stats.dma_unmaps++;
		err = edu_dma_chunk(edu, addr, min_t(size_t, size,
						     EDU_DMA_WINDOW_SIZE),
				    false);
		edu->stats.dma_maps++;
		edu->stats.dma_faults_requested++;
	}
	kfree(buf);
	return err;
}

static int edu_dma_request(struct edu_dev *edu, const char *op, size_t size)
{
	void *buf;
	int err;

	if (!size || size > EDU_DMA_MAX_SIZE)
		return -EINVAL;
	if (!strcmp(op, "verify"))
		return edu_dma_verify(edu, size);
	if (!strcmp(op, "coherent"))
		return edu_dma_coherent(edu, size);
	if (!strcmp(op, "fault"))
		return edu_dma_fault(edu, size);
	if (strcmp(op, "to_device") && strcmp(op, "from_device"))
		return -EINVAL;

	buf = kzalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	err = edu_dma_move(edu, buf, size, !strcmp(op, "to_device"));
	kfree(buf);
	return err;
}

static ssize_t edu_irq_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos, enum edu_raise_mode mode)
{
	struct edu_dev *edu = file->private_data;
	u64 count;
	int err;

	err = kstrtou64_from_user(ubuf, len, 0, &count);
	if (err)
		return err;
	if (count > 1000000)
		return -EINVAL;

	mutex_lock(&edu->lock);
	/* after "free" there is no vector to raise */
	err = edu->irq ? edu_raise_irqs(edu, count, mode) : -ENODEV;
	mutex_unlock(&edu->lock);
	return err ? err : len;
}

static ssize_t edu_irq_wait_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	return edu_irq_write(file, ubuf, len, ppos, EDU_RAISE_WAIT);
}

static ssize_t edu_irq_sleep_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	return edu_irq_write(file, ubuf, len, ppos, EDU_RAISE_ASLEEP);
}

static ssize_t edu_storm_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	return edu_irq_write(file, ubuf, len, ppos, EDU_RAISE_STORM);
}

static ssize_t edu_dma_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	struct edu_dev *edu = file->private_data;
	char cmd[64], op[16];
	size_t size;
	int err;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = '\0';
	if (sscanf(cmd, "%15s %zu", op, &size) != 2)
		return -EINVAL;

	mutex_lock(&edu->lock);
	err = edu_dma_request(edu, op, size);
	mutex_unlock(&edu->lock);
	return err ? err : len;
}

static ssize_t edu_mapbench_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	struct edu_dev *edu = file->private_data;
	struct device *dev = &edu->pdev->dev;
	unsigned int n, i, gap_ns = 0;
	char cmd[64];
	dma_addr_t addr;
	size_t size;
	void *buf;
	int err = 0;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = '\0';
	if (sscanf(cmd, "%u %zu %u", &n, &size, &gap_ns) < 2 || !size ||
	    size > EDU_DMA_MAX_SIZE || n > 10000000 || gap_ns > NSEC_PER_MSEC)
		return -EINVAL;
	buf = kmalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	mutex_lock(&edu->lock);
	for (i = 0; i < n && !err; i++) {
		addr = dma_map_single(dev, buf, size, DMA_TO_DEVICE);
		err = dma_mapping_error(dev, addr);
		edu->stats.dma_maps++;
		if (!err) {
			dma_unmap_single(dev, addr, size, DMA_TO_DEVICE);
			edu->stats.dma_unmaps++;
		}
		if (gap_ns)
			ndelay(gap_ns);
		cond_resched();
	}
	mutex_unlock(&edu->lock);
	kfree(buf);
	return err ? err : len;
}

static ssize_t edu_mapsg_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	struct edu_dev *edu = file->private_data;
	struct device *dev = &edu->pdev->dev;
	struct scatterlist *sg;
	struct sg_table sgt;
	unsigned int n, i;
	char cmd[64];
	size_t size;
	void *buf;
	int ents;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = '\0';
	if (sscanf(cmd, "%u %zu", &n, &size) != 2 || !n || n > 131072 || !size ||
	    size > dma_get_max_seg_size(dev))
		return -EINVAL;
	buf = kmalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (sg_alloc_table(&sgt, n, GFP_KERNEL)) {
		kfree(buf);
		return -ENOMEM;
	}
	for_each_sg(sgt.sgl, sg, n, i)
		sg_set_buf(sg, buf, size);
	mutex_lock(&edu->lock);
	ents = dma_map_sg(dev, sgt.sgl, n, DMA_TO_DEVICE);
	edu->stats.map_sg++;
	if (ents > 0)
		dma_unmap_sg(dev, sgt.sgl, n, DMA_TO_DEVICE);
	else
		edu->stats.map_sg_failed++;
	mutex_unlock(&edu->lock);
	sg_free_table(&sgt);
	kfree(buf);
	return len;
}

static ssize_t edu_stats_read(struct file *file, char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	struct edu_dev *edu = file->private_data;
	struct edu_stats s;
	char out[512];
	int n;

	mutex_lock(&edu->lock);
	s = edu->stats;
	mutex_unlock(&edu->lock);
	s.irq_handled = atomic64_read(&edu->handled);
	s.dma_irqs = atomic64_read(&edu->dma_irqs);

	n = scnprintf(out, sizeof(out),
		      "irq %d\nirq_raised %llu\nirq_handled %llu\ndma_irqs %llu\n"
		      "dma_maps %llu\ndma_unmaps %llu\ndma_bytes_to_device %llu\n"
		      "dma_bytes_from_device %llu\ndma_transfers %llu\n"
		      "verify_failures %llu\ndma_faults_requested %llu\n"
		      "map_sg %llu\nmap_sg_failed %llu\n",
		      edu->irq, s.irq_raised, s.irq_handled, s.dma_irqs,
		      s.dma_maps, s.dma_unmaps, s.dma_bytes_to_device,
		      s.dma_bytes_from_device, s.dma_transfers,
		      s.verify_failures, s.dma_faults_requested,
		      s.map_sg, s.map_sg_failed);
	return simple_read_from_buffer(ubuf, len, ppos, out, n);
}

static ssize_t edu_hold_lock_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	struct edu_dev *edu = file->private_data;
	unsigned int ms;
	int err;

	err = kstrtouint_from_user(ubuf, len, 0, &ms);
	if (err)
		return err;
	if (ms > 10000)
		return -EINVAL;
	device_lock(&edu->pdev->dev);
	msleep(ms);
	device_unlock(&edu->pdev->dev);
	return len;
}

static const struct file_operations edu_hold_lock_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = edu_hold_lock_write,
	.llseek = noop_llseek,
};

static const struct file_operations edu_irq_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = edu_irq_wait_write,
	.llseek = noop_llseek,
};

static const struct file_operations edu_irq_sleep_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = edu_irq_sleep_write,
	.llseek = noop_llseek,
};

static const struct file_operations edu_storm_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = edu_storm_write,
	.llseek = noop_llseek,
};

static const struct file_operations edu_dma_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = edu_dma_write,
	.llseek = noop_llseek,
};

static const struct file_operations edu_mapsg_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = edu_mapsg_write,
	.llseek = noop_llseek,
};

static const struct file_operations edu_mapbench_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = edu_mapbench_write,
	.llseek = noop_llseek,
};

static const struct file_operations edu_stats_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = edu_stats_read,
	.llseek = default_llseek,
};

/* The vector and its handler(s): at probe, and again after "free". */
static int edu_irq_setup(struct edu_dev *edu)
{
	struct pci_dev *pdev = edu->pdev;
	int err;

	err = pci_alloc_irq_vectors(pdev, 1, 1,
				    intx ? PCI_IRQ_INTX : PCI_IRQ_MSI);
	if (err < 0)
		return err;
	edu->irq = pci_irq_vector(pdev, 0);
	err = request_irq(edu->irq, edu_irq, intx ? IRQF_SHARED : 0,
			  KBUILD_MODNAME, edu);
	if (err)
		goto err_free_vectors;
	if (intx) {
		err = request_irq(edu->irq, no_action, IRQF_SHARED,
				  "gpuprobe_edu_neighbour", &edu_neighbour_cookie);
		if (err)
			goto err_free_irq;
	}
	return 0;

err_free_irq:
	free_irq(edu->irq, edu);
err_free_vectors:
	pci_free_irq_vectors(pdev);
	edu->irq = 0;
	return err;
}

static void edu_irq_release(struct edu_dev *edu)
{
	if (!edu->irq)
		return;
	if (intx)
		free_irq(edu->irq, &edu_neighbour_cookie);
	free_irq(edu->irq, edu);
	pci_free_irq_vectors(edu->pdev);
	edu->irq = 0;
}

/*
 * "free" gives the vector back, "alloc" takes one again, the driver staying
 * bound: what NVIDIA's driver does at last close and first open, and what
 * a tracer must follow without an unbind (selftests irq_vectors.c).
 */
static ssize_t edu_vectors_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	struct edu_dev *edu = file->private_data;
	char op[8] = {};
	int err = 0;

	if (len >= sizeof(op) || copy_from_user(op, ubuf, len))
		return -EINVAL;
	strim(op);
	mutex_lock(&edu->lock);
	if (!strcmp(op, "free"))
		edu_irq_release(edu);
	else if (!strcmp(op, "alloc"))
		err = edu->irq ? -EBUSY : edu_irq_setup(edu);
	else
		err = -EINVAL;
	mutex_unlock(&edu->lock);
	return err ? err : len;
}

static const struct file_operations edu_vectors_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = edu_vectors_write,
	.llseek = noop_llseek,
};

static int edu_setup_hw(struct edu_dev *edu)
{
	struct pci_dev *pdev = edu->pdev;
	int err;

	err = pcim_enable_device(pdev);
	if (err)
		return err;
	err = pcim_iomap_regions(pdev, BIT(0), KBUILD_MODNAME);
	if (err)
		return err;
	edu->mmio = pcim_iomap_table(pdev)[0];
	if (ioread32(edu->mmio + EDU_REG_IDENT) != EDU_IDENT) {
		dev_err(&pdev->dev, "not an edu device (ident %#x)\n",
			ioread32(edu->mmio + EDU_REG_IDENT));
		return -ENODEV;
	}

	pci_set_master(pdev);
	err = dma_set_mask_and_coherent(&pdev->dev,
					DMA_BIT_MASK(EDU_DMA_MASK_BITS));
	if (err)
		return err;

	return edu_irq_setup(edu);
}

static int edu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct edu_dev *edu;
	int err;

	edu = devm_kzalloc(&pdev->dev, sizeof(*edu), GFP_KERNEL);
	if (!edu)
		return -ENOMEM;
	edu->pdev = pdev;
	mutex_init(&edu->lock);
	init_completion(&edu->done);
	init_waitqueue_head(&edu->irq_wq);
	pci_set_drvdata(pdev, edu);

	err = edu_setup_hw(edu);
	if (err)
		return err;

	edu->dir = debugfs_create_dir(pci_name(pdev), edu_debugfs_root);
	debugfs_create_file("irq", 0200, edu->dir, edu, &edu_irq_fops);
	debugfs_create_file("irq_sleep", 0200, edu->dir, edu,
			    &edu_irq_sleep_fops);
	debugfs_create_file("storm", 0200, edu->dir, edu, &edu_storm_fops);
	debugfs_create_file("dma", 0200, edu->dir, edu, &edu_dma_fops);
	debugfs_create_file("mapbench", 0200, edu->dir, edu,
			    &edu_mapbench_fops);
	debugfs_create_file("mapsg", 0200, edu->dir, edu, &edu_mapsg_fops);
	debugfs_create_file("stats", 0400, edu->dir, edu, &edu_stats_fops);
	debugfs_create_file("hold_lock", 0200, edu->dir, edu,
			    &edu_hold_lock_fops);
	debugfs_create_file("vectors", 0200, edu->dir, edu, &edu_vectors_fops);
	dev_info(&pdev->dev, "edu test device ready, irq %d\n", edu->irq);
	return 0;
}

static void edu_remove(struct pci_dev *pdev)
{
	struct edu_dev *edu = pci_get_drvdata(pdev);

	debugfs_remove_recursive(edu->dir);
	edu_irq_release(edu);
	mutex_destroy(&edu->lock);
}

static const struct pci_device_id edu_ids[] = {
	{ PCI_DEVICE(EDU_VENDOR, EDU_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, edu_ids);

static struct pci_driver edu_driver = {
	.name = KBUILD_MODNAME,
	.id_table = edu_ids,
	.probe = edu_probe,
	.remove = edu_remove,
};

static int __init edu_init(void)
{
	int err;

	edu_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	err = pci_register_driver(&edu_driver);
	if (err)
		debugfs_remove_recursive(edu_debugfs_root);
	return err;
}

static void __exit edu_exit(void)
{
	pci_unregister_driver(&edu_driver);
	debugfs_remove_recursive(edu_debugfs_root);
}

module_init(edu_init);
module_exit(edu_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Test driver for QEMU's edu device: exact MSI and DMA workloads");
MODULE_INFO(test, "Y");
