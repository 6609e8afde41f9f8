// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of relay's read path: a reader reads a channel buffer while
 * a writer fills it, or once it stopped.  Every record must come whole,
 * once and in order, however the reads and the sub-buffer switches fall.
 */

#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/relay.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

/* A sub-buffer holds 21 records and 8 bytes of padding. */
#define RT_SUBBUF	512
#define RT_N_SUBBUFS	8
#define RT_RECORDS	BIT(17)
/* Reads end inside records, and inside sub-buffers. */
#define RT_CHUNK	100
#define RT_WRITER_CPU	1

struct rt_record {
	u64 seq;
	u64 check;	/* ~seq */
	u64 more;	/* 3 * seq */
};

struct rt_ctx {
	struct rchan *chan;
	bool full;		/* the writer's last write found no room */
	bool stop;
	struct completion done;
};

/* Not overwrite mode: a write that finds the buffer full is not made. */
static int rt_subbuf_start(struct rchan_buf *buf, void *subbuf,
			   void *prev_subbuf)
{
	struct rt_ctx *c = buf->chan->private_data;

	if (!relay_buf_full(buf))
		return 1;
	WRITE_ONCE(c->full, true);
	return 0;
}

static struct dentry *rt_create_buf_file(const char *filename,
					 struct dentry *parent, umode_t mode,
					 struct rchan_buf *buf, int *is_global)
{
	/*
	 * relay_open() without a name calls this only for *is_global, and
	 * takes NULL for a failure: a buffer with no file.
	 */
	if (!filename)
		return (struct dentry *)buf;
	return debugfs_create_file(filename, mode, parent, buf,
				   &relay_file_operations);
}

static int rt_remove_buf_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks rt_callbacks = {
	.subbuf_start		= rt_subbuf_start,
	.create_buf_file	= rt_create_buf_file,
	.remove_buf_file	= rt_remove_buf_file,
};

/* Writes records 1 to RT_RECORDS, each again until it found room. */
static int rt_writer(void *data)
{
	struct rt_ctx *c = data;
	struct rt_record r;
	u64 seq = 1;

	while (seq <= RT_RECORDS && !READ_ONCE(c->stop)) {
		r.seq = seq;
		r.check = ~seq;
		r.more = 3 * seq;
		WRITE_ONCE(c->full, false);
		relay_write(c->chan, &r, sizeof(r));
		if (READ_ONCE(c->full))
			cond_resched();
		else
			seq++;
	}
	complete(&c->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* The file and user memory of rt_read_file(), test->priv. */
struct rt_file {
	struct file *file;
	char __user *ubuf;
};

/*
 * Reads at most @len bytes of @buf into @dst: 0 when nothing is there, a
 * negative errno on an error.
 */
typedef ssize_t (*rt_read_fn)(struct kunit *test, struct rchan_buf *buf,
			      void *dst, size_t len);

static ssize_t rt_read_file(struct kunit *test, struct rchan_buf *buf,
			    void *dst, size_t len)
{
	struct rt_file *f = test->priv;
	loff_t pos = 0;
	ssize_t n;

	n = f->file->f_op->read(f->file, f->ubuf, len, &pos);
	if (n > 0 && copy_from_user(dst, f->ubuf, n))
		return -EFAULT;
	return n;
}

static ssize_t rt_read_kernel(struct kunit *test, struct rchan_buf *buf,
			      void *dst, size_t len)
{
	return relay_buf_read(buf, dst, len);
}

/* @name: of the buffers' files, NULL for buffers without */
static void rt_run(struct kunit *test, const char *name, rt_read_fn read_fn)
{
	struct rt_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	u8 part[sizeof(struct rt_record) + RT_CHUNK];
	struct task_struct *writer;
	struct rchan_buf *buf;
	unsigned long deadline;
	size_t have = 0;
	u64 expect = 1;
	ssize_t n;
	bool done = false;

	if (num_online_cpus() < 2 || !cpu_online(RT_WRITER_CPU))
		kunit_skip(test, "needs CPU %d online", RT_WRITER_CPU);
	KUNIT_ASSERT_NOT_NULL(test, c);
	init_completion(&c->done);
	c->chan = relay_open(name, NULL, RT_SUBBUF, RT_N_SUBBUFS,
			     &rt_callbacks, c);
	KUNIT_ASSERT_NOT_NULL(test, c->chan);
	buf = *per_cpu_ptr(c->chan->buf, RT_WRITER_CPU);
	if (test->priv)
		((struct rt_file *)test->priv)->file->private_data = buf;

	/* The reader runs on another CPU than the writer. */
	set_cpus_allowed_ptr(current, cpumask_of(0));
	writer = kthread_run_on_cpu(rt_writer, c, RT_WRITER_CPU, "relay_test/%u");
	KUNIT_ASSERT_FALSE(test, IS_ERR(writer));

	deadline = jiffies + 60 * HZ;
	while (expect <= RT_RECORDS && time_before(jiffies, deadline)) {
		n = read_fn(test, buf, part + have, RT_CHUNK);
		if (n < 0) {
			KUNIT_FAIL(test, "read: %zd", n);
			goto out;
		}
		if (!n) {
			/* Nothing now: the writer is behind, or it is done. */
			if (done)
				break;
			done = completion_done(&c->done);
			cond_resched();
			continue;
		}
		have += n;
		while (have >= sizeof(struct rt_record)) {
			struct rt_record r;

			memcpy(&r, part, sizeof(r));
			if (r.seq != expect || r.check != ~expect ||
			    r.more != 3 * expect) {
				KUNIT_FAIL(test, "record %llu: got %llu %llx %llu",
					   expect, r.seq, r.check, r.more);
				goto out;
			}
			expect++;
			have -= sizeof(r);
			memmove(part, part + sizeof(r), have);
		}
	}
	KUNIT_EXPECT_EQ(test, expect - 1, RT_RECORDS);
	KUNIT_EXPECT_EQ(test, have, 0);
out:
	WRITE_ONCE(c->stop, true);
	wait_for_completion(&c->done);
	kthread_stop(writer);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	relay_close(c->chan);
}

/*
 * relay's read(), and nothing else of its file operations: the file is not
 * opened through relay_file_open(), which takes the reference to the
 * buffer that its release() drops.
 */
static ssize_t rt_fop_read(struct file *file, char __user *ubuf, size_t len,
			   loff_t *ppos)
{
	return relay_file_operations.read(file, ubuf, len, ppos);
}

static const struct file_operations rt_fops = {
	.owner	= THIS_MODULE,
	.read	= rt_fop_read,
};

/* A file for rt_read_file() and user memory to read into, as test->priv. */
static void rt_file_open(struct kunit *test, struct rt_file *f)
{
	unsigned long ubuf;

	ubuf = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, ubuf, 0, "no user memory");
	f->ubuf = (char __user *)ubuf;
	f->file = anon_inode_getfile("relay_test", &rt_fops, NULL, O_RDONLY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f->file));
	test->priv = f;
}

/* read() of the buffer's file, into user memory. */
static void relay_test_file_read(struct kunit *test)
{
	struct rt_file f;

	if (num_online_cpus() < 2 || !cpu_online(RT_WRITER_CPU))
		kunit_skip(test, "needs CPU %d online", RT_WRITER_CPU);
	rt_file_open(test, &f);
	rt_run(test, "relay_test", rt_read_file);
	test->priv = NULL;
	fput(f.file);
}

/* relay_buf_read(), into kernel memory. */
static void relay_test_kernel_read(struct kunit *test)
{
	test->priv = NULL;
	rt_run(test, "relay_test", rt_read_kernel);
}

/* relay_buf_read() of buffers that have no file. */
static void relay_test_kernel_read_no_file(struct kunit *test)
{
	test->priv = NULL;
	rt_run(test, NULL, rt_read_kernel);
}

/*
 * The users in the tree reserve a slot with relay_reserve() and fill it,
 * and their readers read the buffer's file: blktrace per CPU, a record
 * per slot, dropping a record when the buffer is full; i915's GuC log in
 * one global buffer, a whole sub-buffer per slot, filled before the slot
 * is reserved, then a switch with relay_flush().  These two cases write
 * as they do and read the file.
 */
struct rt_reserve {
	struct rchan *chan;
	unsigned int slots;	/* to reserve */
	size_t size;		/* of a slot */
	bool flush;		/* relay_flush() after each slot */
	u64 seq;		/* of the last slot tried */
	u64 written, dropped;
	struct completion done;
};

/* Fills a slot with its number, once per u64. */
static void rt_fill(void *slot, size_t size, u64 seq)
{
	u64 *w = slot;
	size_t i;

	for (i = 0; i < size / sizeof(u64); i++)
		w[i] = seq + i;
}

static int rt_reserve_writer(void *data)
{
	struct rt_reserve *r = data;
	unsigned long flags;
	unsigned int i;
	void *slot;

	for (i = 0; i < r->slots; i++) {
		WRITE_ONCE(r->seq, r->seq + 1);
		if (r->flush) {
			/* The GuC log: fill the sub-buffer, then count it. */
			slot = relay_reserve(r->chan, 0);
			if (slot) {
				rt_fill(slot, r->size, r->seq);
				/* As the GuC log: the data, then the offset. */
				smp_wmb();
				relay_reserve(r->chan, r->size);
				relay_flush(r->chan);
			}
		} else {
			/* blktrace: reserve, fill, interrupts off. */
			local_irq_save(flags);
			slot = relay_reserve(r->chan, r->size);
			if (slot)
				rt_fill(slot, r->size, r->seq);
			local_irq_restore(flags);
		}
		if (slot)
			r->written++;
		else
			r->dropped++;
		cond_resched();
	}
	complete(&r->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static struct dentry *rt_create_global_file(const char *filename,
					    struct dentry *parent,
					    umode_t mode,
					    struct rchan_buf *buf,
					    int *is_global)
{
	*is_global = 1;
	return rt_create_buf_file(filename, parent, mode, buf, is_global);
}

static const struct rchan_callbacks rt_global_callbacks = {
	.subbuf_start		= rt_subbuf_start,
	.create_buf_file	= rt_create_global_file,
	.remove_buf_file	= rt_remove_buf_file,
};

/*
 * Rounds of @slots slots of @size bytes, each read through the file while
 * it is written (@flush: the slots are whole when reserved) or after it:
 * the slots come whole, in order, each once; none is lost but those the
 * full buffer refused.
 */
static void rt_reserve_run(struct kunit *test, size_t size, bool flush,
			   unsigned int slots)
{
	struct rt_reserve *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	int cpu = cpu_online(RT_WRITER_CPU) ? RT_WRITER_CPU : 0;
	u8 *part = kunit_kzalloc(test, size + RT_CHUNK, GFP_KERNEL);
	struct task_struct *writer;
	unsigned long deadline;
	struct rt_file f;
	u64 got = 0, last = 0, written = 0;
	struct rt_ctx c = {};
	bool stopped = false;
	size_t have = 0;
	int round;
	ssize_t n;

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, part);
	rt_file_open(test, &f);
	r->size = size;
	r->flush = flush;
	r->slots = slots;
	r->chan = relay_open("relay_test", NULL, RT_SUBBUF, RT_N_SUBBUFS,
			     flush ? &rt_global_callbacks : &rt_callbacks, &c);
	KUNIT_ASSERT_NOT_NULL(test, r->chan);
	f.file->private_data = *per_cpu_ptr(r->chan->buf, cpu);
	/* The reader runs on another CPU than the writer, if there is one. */
	if (cpu)
		set_cpus_allowed_ptr(current, cpumask_of(0));

	for (round = 0; round < 3; round++) {
		init_completion(&r->done);
		writer = kthread_run_on_cpu(rt_reserve_writer, r, cpu,
					    "relay_test/%u");
		KUNIT_ASSERT_FALSE(test, IS_ERR(writer));
		stopped = false;
		if (!flush) {
			wait_for_completion(&r->done);
			stopped = true;
		}
		deadline = jiffies + 60 * HZ;
		while (time_before(jiffies, deadline)) {
			bool done = stopped ||
				    (stopped = try_wait_for_completion(&r->done));

			n = rt_read_file(test, NULL, part + have, RT_CHUNK);
			if (n < 0) {
				KUNIT_FAIL(test, "read: %zd", n);
				break;
			}
			if (!n && done)
				break;
			have += n;
			for (; have >= size; have -= size) {
				u64 first, w;
				size_t i;

				memcpy(&first, part, sizeof(u64));
				if (first <= last || first > READ_ONCE(r->seq)) {
					KUNIT_FAIL(test, "slot %llu after %llu",
						   first, last);
					goto out;
				}
				for (i = 1; i < size / sizeof(u64); i++) {
					memcpy(&w, part + i * sizeof(u64), sizeof(w));
					if (w != first + i) {
						KUNIT_FAIL(test, "slot %llu, word %zu: %llu",
							   first, i, w);
						goto out;
					}
				}
				last = first;
				got++;
				memmove(part, part + size, have - size);
			}
			if (!n)
				cond_resched();
		}
		if (!stopped)
			wait_for_completion(&r->done);
		kthread_stop(writer);
		KUNIT_EXPECT_EQ(test, have, 0);
		KUNIT_EXPECT_EQ_MSG(test, got, r->written,
				    "round %d: %llu slots read, %llu written, %llu dropped",
				    round, got, r->written, r->dropped);
		/*
		 * The sub-buffers read went back to the writer: blktrace's
		 * way fills the whole buffer again each round.
		 */
		if (flush)
			KUNIT_EXPECT_GT(test, r->written, written);
		else
			KUNIT_EXPECT_EQ(test, r->written - written,
					RT_N_SUBBUFS * (RT_SUBBUF / size));
		written = r->written;
	}
	if (!flush)
		KUNIT_EXPECT_GT(test, r->dropped, 0);
	goto close;
out:
	if (!stopped)
		wait_for_completion(&r->done);
	kthread_stop(writer);
close:
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	relay_close(r->chan);
	test->priv = NULL;
	fput(f.file);
}

/* blktrace's way: a record per slot, read once the writer stopped. */
static void relay_test_reserve_records(struct kunit *test)
{
	/* 168 records fit: 200 fill the buffer each round. */
	rt_reserve_run(test, 24, false, 200);
}

/* The GuC log's way: a sub-buffer per slot, read while written. */
static void relay_test_reserve_subbufs(struct kunit *test)
{
	rt_reserve_run(test, RT_SUBBUF, true, 64);
}

static struct kunit_case relay_test_cases[] = {
	KUNIT_CASE(relay_test_file_read),
	KUNIT_CASE(relay_test_reserve_records),
	KUNIT_CASE(relay_test_reserve_subbufs),
	KUNIT_CASE(relay_test_kernel_read),
	KUNIT_CASE(relay_test_kernel_read_no_file),
	{}
};

static struct kunit_suite relay_test_suite = {
	.name = "relay",
	.test_cases = relay_test_cases,
};

kunit_test_suite(relay_test_suite);

MODULE_DESCRIPTION("KUnit tests of relay's read path");
MODULE_LICENSE("GPL");
