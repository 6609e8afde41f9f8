# SPDX-License-Identifier: GPL-2.0-only
#
# NVIDIA's nvidia.ko (open GPU kernel modules): the channel groups (TSGs)
# of the resource manager as grtrace contexts, one ring per runlist.
#
# NOT RUN: no NVIDIA GPU here.  The functions and member names are those of
# open-gpu-kernel-modules (kernel_channel_group.c, kernel_channel_group_api.c,
# kernel_channel.c; struct KernelChannelGroup, KernelChannelGroupApi and
# KernelChannel of the generated g_*_nvoc.h headers), read in the 515.43.04
# sources and a 570-series release.  The fetch arguments name members
# through BTF: nvidia.ko must carry BTF (built by kbuild against a kernel
# with CONFIG_DEBUG_INFO_BTF_MODULES); without it the kernel refuses the
# first probe and grtrace probe says so, tracing nothing.
#
# What the kernel sees of NVIDIA's jobs: user space writes its pushbuffers
# and rings the doorbell itself, so there is no per-job event.  A channel
# group is created, scheduled (enabled) and destroyed through the kernel;
# a "job" here is a schedule, and a work submit token query (a sync point
# of the CUDA runtime, not a kernel launch).  Their seqnos are grtrace
# probe's count per runlist.

ring runlist other dev=nvidia

# The group's timeslice is set once its hardware id and runlist are known
# (kchangrpInit_IMPL), and again on NVA06C_CTRL_CMD_SET_TIMESLICE.
# kchangrpConstruct_IMPL runs before any of that is set.
probe tsg_init kfifoChannelGroupSetTimeslice_IMPL tsg=pKernelChannelGroup->grpID:u32 runlist=pKernelChannelGroup->runlistId:u32 engine=pKernelChannelGroup->engineType:u32 timeslice=timesliceUs:u64 interleave=+0(pKernelChannelGroup->pInterleaveLevel):u32
context tsg_init create ctx=tsg ring=runlist ringno=runlist engine=engine timeslice_us=timeslice interleave=interleave

# NVA06C_CTRL_CMD_GPFIFO_SCHEDULE: the group is enabled on its runlist.
probe sched kchangrpapiCtrlCmdGpFifoSchedule_IMPL tsg=pKernelChannelGroupApi->pKernelChannelGroup->grpID:u32 runlist=pKernelChannelGroupApi->pKernelChannelGroup->runlistId:u32 channels=pKernelChannelGroupApi->pKernelChannelGroup->chanCount:u32 timeslice=pKernelChannelGroupApi->pKernelChannelGroup->timesliceUs:u64 enable=pSchedParams->bEnable:u8
context sched schedule ctx=tsg ring=runlist ringno=runlist channels=channels timeslice_us=timeslice enable=enable
job sched commit ring=runlist ringno=runlist ctx=tsg

# The work submit token of a channel is handed to user space.
probe token kchannelNotifyWorkSubmitToken_IMPL tsg=pKernelChannel->pKernelChannelGroupApi->pKernelChannelGroup->grpID:u32 runlist=pKernelChannel->runlistId:u32 chid=pKernelChannel->ChID:u32 token=token:u32
job token submit ring=runlist ringno=runlist ctx=tsg

# The group is destroyed.
probe tsg_destroy kchangrpDestruct_IMPL tsg=pKernelChannelGroup->grpID:u32 runlist=pKernelChannelGroup->runlistId:u32
context tsg_destroy destroy ctx=tsg ring=runlist ringno=runlist
