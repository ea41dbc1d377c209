#!/usr/bin/env python3
"""Generates the model library workloads/models/*.json from the architecture definitions.

This script is documentation of how every number in those files was computed (it is not run by the build):
parameters and multiply-accumulates (MACs) follow the layer shapes of torchvision / HF / the papers cited in each file;
forward FLOPs = 2 x MACs (conv/linear/attention matmuls only; elementwise ops carry no FLOPs, as in torchvision's
published _ops). Activation bytes per unit are an ESTIMATE at 4 bytes per element (fp32) of the tensors each op reads
and writes, with these counting rules (elements):
  conv / linear / matmul: input + output;  batch-norm (training): 3 x output (statistics pass + normalise pass);
  ReLU / GELU / dropout: 2 x output;  residual add: 3 x output; with FUSE_BN_ACT (below) a ReLU and a residual add
  that follow a BN cost nothing / 1 x output extra (fused into the BN normalise pass);  pooling: input + output;  layer-norm: 3 x output;
  softmax: 2 x scores.  Weights are not included here (the compute model adds them per step).
Usage: python3 generate_models.py <output dir>
"""
import json
import sys

FP32 = 4


class Acc:
    """Accumulates params, MACs and activation elements of a run of ops."""

    def __init__(self):
        self.params = 0
        self.macs = 0
        self.elems = 0       # all activation elements read + written
        self.ew_elems = 0    # the part of elems moved by memory-bound (elementwise / normalisation / pooling) kernels
        self.wino_macs = 0   # the part of macs in 3x3 stride-1 dense convolutions (Winograd-eligible)

    def conv(self, cin, cout, k, hout, wout=None, hin=None, groups=1, bias=False, kw=None):
        wout = hout if wout is None else wout
        kh = k
        kw = k if kw is None else kw
        self.params += cin // groups * cout * kh * kw + (cout if bias else 0)
        self.macs += cin // groups * cout * kh * kw * hout * wout
        hin = hout if hin is None else hin
        self.elems += cin * hin * hin + cout * hout * wout
        if kh == 3 and kw == 3 and hin <= hout + 2 and groups == 1:  # stride 1 (same or valid padding)
            self.wino_macs += cin * cout * 9 * hout * wout
        return cout * hout * wout

    def bn(self, c, n_out_elems, affine=True):
        self.params += 2 * c if affine else 0
        self.ew(3 * n_out_elems)

    def act(self, n):
        self.ew(2 * n)

    def add(self, n):
        self.ew(3 * n)

    def pool(self, nin, nout):
        self.ew(nin + nout)

    def ew(self, n):
        """Elements moved by a memory-bound kernel (no matmul)."""
        self.elems += n
        self.ew_elems += n

    def linear(self, fin, fout, bias=True, tokens=1):
        self.params += fin * fout + (fout if bias else 0)
        self.macs += fin * fout * tokens
        self.elems += (fin + fout) * tokens

    def layer(self, name, **extra):
        d = {"name": name, "params": self.params, "fwd_flops": 2 * self.macs, "bytes": FP32 * self.elems}
        if self.ew_elems:
            d["elementwise_bytes"] = FP32 * self.ew_elems
        if self.wino_macs:
            d["winograd_flops"] = 2 * self.wino_macs
        d.update(extra)
        return d


# BN + activation fusion (training): cuDNN's cudnnBatchNormalizationForwardTrainingEx / BackwardEx with
# CUDNN_BATCHNORM_OPS_BN_ACTIVATION and _BN_ADD_ACTIVATION (cuDNN >= 7.4 developer guide) apply the ReLU, and the
# residual add, inside the BN normalise pass; TF uses them via FusedBatchNormEx (grappler remapper), MXNet and NVIDIA's
# DeepLearningExamples containers likewise. Counted then: BN+ReLU = 3 x output (statistics read; normalise read +
# write, ReLU in place), BN+add+ReLU = 4 x output (plus the residual read), instead of 5 and 8 when unfused.
FUSE_BN_ACT = True


def conv_bn_relu(a, cin, cout, k, hout, hin=None, groups=1, relu=True, kw=None):
    n = a.conv(cin, cout, k, hout, hin=hin, groups=groups, kw=kw)
    a.bn(cout, n)
    if relu and not FUSE_BN_ACT:
        a.act(n)
    return n


# ---------------------------------------------------------------- ResNet (torchvision v1.5: stride on the 3x3)
def resnet(blocks, name, source, published):
    layers = []
    a = Acc()
    conv_bn_relu(a, 3, 64, 7, 112, hin=224)
    a.pool(64 * 112 * 112, 64 * 56 * 56)  # maxpool 3x3 s2
    layers.append(a.layer("conv1"))
    cin, hw = 64, 56
    for stage, (w, n) in enumerate(zip([64, 128, 256, 512], blocks), start=1):
        for b in range(n):
            a = Acc()
            stride = 2 if (b == 0 and stage > 1) else 1
            hout = hw // stride
            conv_bn_relu(a, cin, w, 1, hw)
            conv_bn_relu(a, w, w, 3, hout, hin=hw)
            n_out = conv_bn_relu(a, w, 4 * w, 1, hout, relu=False)
            if b == 0:
                conv_bn_relu(a, cin, 4 * w, 1, hout, hin=hw, relu=False)
            if FUSE_BN_ACT:
                a.ew(n_out)  # residual read by the fused BN + add + ReLU pass
            else:
                a.add(n_out)
                a.act(n_out)
            layers.append(a.layer(f"layer{stage}.{b}"))
            cin, hw = 4 * w, hout
    a = Acc()
    a.pool(2048 * 49, 2048)
    a.linear(2048, 1000)
    layers.append(a.layer("fc"))
    return compact({"name": name, "source": source, "input": "one 224x224x3 image", "unit": "sample",
                    "param_dtype": "fp32", "grad_dtype": "fp32", "saturation_batch": 32,
                    "published": published, "layers": layers})


def compact(model):
    """Folds runs of identical consecutive layers named <prefix>.<i> into one entry with a repeat count."""
    out = []
    for l in model["layers"]:
        if out:
            p = out[-1]
            pre, _, idx = l["name"].rpartition(".")
            same = all(p.get(k) == l.get(k) for k in ("params", "fwd_flops", "bytes", "sparse", "bwd_ratio"))
            if same and "{i}" in p["name"] and p["name"].rpartition(".")[0] == pre and idx.isdigit() \
                    and int(idx) == p["index_from"] + p["repeat"]:
                p["repeat"] += 1
                continue
            ppre, _, pidx = p["name"].rpartition(".")
            if same and "{i}" not in p["name"] and ppre == pre and pidx.isdigit() and idx.isdigit() \
                    and int(idx) == int(pidx) + 1:
                p["name"] = pre + ".{i}"
                p["index_from"] = int(pidx)
                p["repeat"] = 2
                continue
        out.append(dict(l))
    model["layers"] = out
    return model


# ---------------------------------------------------------------- VGG-16 (torchvision vgg16, no BN)
def vgg16():
    cfg = [(1, [64, 64]), (2, [128, 128]), (3, [256, 256, 256]), (4, [512, 512, 512]), (5, [512, 512, 512])]
    layers, cin, hw = [], 3, 224
    for blk, outs in cfg:
        for i, c in enumerate(outs, start=1):
            a = Acc()
            n = a.conv(cin, c, 3, hw, bias=True)
            a.act(n)
            if i == len(outs):
                a.pool(n, n // 4)
            layers.append(a.layer(f"conv{blk}_{i}"))
            cin = c
        hw //= 2
    for name, fin, fout, relu in [("fc6", 25088, 4096, True), ("fc7", 4096, 4096, True), ("fc8", 4096, 1000, False)]:
        a = Acc()
        a.linear(fin, fout)
        if relu:
            a.act(2 * fout)  # ReLU + dropout
        layers.append(a.layer(name))
    return {"name": "vgg16", "source": "torchvision/models/vgg.py (vgg16, no batch-norm); totals: torchvision metadata "
            "num_params 138,357,544, _ops 15.47 GMACs; per-layer table workloads.md B7.2 [derived]",
            "input": "one 224x224x3 image", "unit": "sample", "param_dtype": "fp32", "grad_dtype": "fp32",
            "saturation_batch": 16,
            "published": {"params": 138357544, "fwd_gmacs": 15.47, "source": "torchvision metadata (workloads.md B7.2)"},
            "layers": layers}


# ---------------------------------------------------------------- VGG-19 (configuration E, no BN)
def vgg19():
    """Simonyan & Zisserman, ICLR 2015, Table 1 column E: 3x3 stride-1 convolutions (pad 1) with biases, blocks of
    2/2/4/4/4 convolutions of 64/128/256/512/512 channels each closed by a 2x2 max-pool, then FC 4096, 4096, 1000."""
    cfg = [(1, [64] * 2), (2, [128] * 2), (3, [256] * 4), (4, [512] * 4), (5, [512] * 4)]
    layers, cin, hw = [], 3, 224
    for blk, outs in cfg:
        for i, c in enumerate(outs, start=1):
            a = Acc()
            n = a.conv(cin, c, 3, hw, bias=True)
            a.act(n)
            if i == len(outs):
                a.pool(n, n // 4)
            layers.append(a.layer(f"conv{blk}_{i}"))
            cin = c
        hw //= 2
    for name, fin, fout, relu in [("fc6", 25088, 4096, True), ("fc7", 4096, 4096, True), ("fc8", 4096, 1000, False)]:
        a = Acc()
        a.linear(fin, fout)
        if relu:
            a.act(2 * fout)  # ReLU + dropout
        layers.append(a.layer(name))
    return {"name": "vgg19", "source": "Simonyan & Zisserman, 'Very Deep Convolutional Networks for Large-Scale Image "
            "Recognition', ICLR 2015, Table 1 configuration E (16 conv 3x3 + 3 FC, biases, no BN); per-layer counts "
            "[derived] from those shapes (143,667,240 params, 19.63 GMACs at 224x224); published total: Table 2, 144 M "
            "parameters for E (the paper gives no FLOPs; torchvision's vgg19 metadata, recalled: 143,667,240 / 19.63)",
            "input": "one 224x224x3 image", "unit": "sample", "param_dtype": "fp32", "grad_dtype": "fp32",
            "saturation_batch": 16,
            "published": {"params": 144000000, "fwd_gmacs": 19.63, "approximate": True,
                          "source": "Simonyan & Zisserman 2015 Table 2 (E: 144 M parameters); GMACs: torchvision vgg19 "
                                    "metadata 19.63 (recalled)"},
            "layers": layers}


# ---------------------------------------------------------------- GoogLeNet (Inception v1, the paper's version)
def googlenet():
    """Szegedy et al., 'Going Deeper with Convolutions', CVPR 2015, Table 1 and Section 5: convolutions with biases and
    ReLU, no batch-norm; LRN after the first max-pool and after conv2 (Figure 3); the 5x5 branch is 5x5 as in the
    paper (torchvision's googlenet uses 3x3 there); the two auxiliary classifiers of Section 5 (5x5/3 average pool,
    1x1 conv 128, FC 1024, FC 1000) run in training only, after 4a and 4d."""
    layers = []

    def cr(a, cin, cout, k, hout, hin=None):  # conv + bias + ReLU
        n = a.conv(cin, cout, k, hout, hin=hin, bias=True)
        a.act(n)
        return n

    a = Acc()
    n = cr(a, 3, 64, 7, 112, hin=224)
    a.pool(n, 64 * 56 * 56)
    a.ew(2 * 64 * 56 * 56)  # LRN: read + write (one pass, ASSUMPTION)
    layers.append(a.layer("conv1"))
    a = Acc()
    cr(a, 64, 64, 1, 56)
    n = cr(a, 64, 192, 3, 56)
    a.ew(2 * n)  # LRN
    a.pool(n, 192 * 28 * 28)
    layers.append(a.layer("conv2"))

    def inception(name, cin, hw, c1, r3, c3, r5, c5, pp, pool_after=False):
        a = Acc()
        cr(a, cin, c1, 1, hw)
        cr(a, cin, r3, 1, hw); cr(a, r3, c3, 3, hw)
        cr(a, cin, r5, 1, hw); cr(a, r5, c5, 5, hw)
        a.pool(cin * hw * hw, cin * hw * hw); cr(a, cin, pp, 1, hw)  # 3x3/1 max-pool, then the pool projection
        cout = c1 + c3 + c5 + pp
        a.ew(2 * cout * hw * hw)  # depth concatenation (copy)
        if pool_after:
            a.pool(cout * hw * hw, cout * (hw // 2) ** 2)
        layers.append(a.layer(name))
        return cout

    def aux(name, cin):
        a = Acc()
        a.pool(cin * 14 * 14, cin * 16)  # 5x5/3 average pool: 4x4
        cr(a, cin, 128, 1, 4)
        a.linear(128 * 16, 1024)
        a.act(2 * 1024)  # ReLU + dropout (70 %)
        a.linear(1024, 1000)
        layers.append(a.layer(name))

    inception("inception_3a", 192, 28, 64, 96, 128, 16, 32, 32)
    inception("inception_3b", 256, 28, 128, 128, 192, 32, 96, 64, pool_after=True)
    inception("inception_4a", 480, 14, 192, 96, 208, 16, 48, 64)
    aux("aux1", 512)
    inception("inception_4b", 512, 14, 160, 112, 224, 24, 64, 64)
    inception("inception_4c", 512, 14, 128, 128, 256, 24, 64, 64)
    inception("inception_4d", 512, 14, 112, 144, 288, 32, 64, 64)
    aux("aux2", 528)
    inception("inception_4e", 528, 14, 256, 160, 320, 32, 128, 128, pool_after=True)
    inception("inception_5a", 832, 7, 256, 160, 320, 32, 128, 128)
    inception("inception_5b", 832, 7, 384, 192, 384, 48, 128, 128)
    a = Acc()
    a.pool(1024 * 49, 1024)
    a.act(2 * 1024)  # dropout (40 %)
    a.linear(1024, 1000)
    layers.append(a.layer("fc"))
    return {"name": "googlenet", "source": "Szegedy et al., 'Going Deeper with Convolutions', CVPR 2015: Table 1 shapes "
            "(biases, ReLU, LRN, no BN, 5x5 branches), Section 5 auxiliary classifiers (training only: layers aux1, "
            "aux2); per-layer counts [derived] from those shapes. Published: Table 1's ops column sums to 1,502 M MACs "
            "(Section 1: a budget of 1.5 billion multiply-adds) and its params column to ~6.8 M, both without the "
            "auxiliary classifiers (Table 1 lists conv1 as 2.7 K params / 34 M ops; the 7x7x3x64 shape gives 9.4 K / "
            "118 M, which the counts here use)",
            "input": "one 224x224x3 image", "unit": "sample", "param_dtype": "fp32", "grad_dtype": "fp32",
            "saturation_batch": 32,
            "published": {"params": 6800000, "fwd_gmacs": 1.502, "approximate": True,
                          "source": "Szegedy et al. 2015 Table 1: sums of the params (~6.8 M) and ops (1,502 M) "
                                    "columns, without the auxiliary classifiers"},
            "layers": layers}


# ---------------------------------------------------------------- AlexNet (Krizhevsky et al. 2012, one tower)
def alexnet():
    """Krizhevsky, Sutskever & Hinton, NIPS 2012, Section 3.5 and Figure 2, counted as one network (the two GPU towers
    together, as Caffe's bvlc_alexnet counts it): 227x227 input (55 = (227 - 11) / 4 + 1), conv1 96 11x11/4, conv2 256
    5x5 in 2 groups, conv3 384 3x3 (all-to-all), conv4 384 and conv5 256 3x3 in 2 groups; biases; LRN after conv1 and
    conv2; 3x3/2 max-pools after conv1, conv2, conv5; FC 4096 (dropout), 4096 (dropout), 1000."""
    layers = []
    spec = [("conv1", 3, 96, 11, 55, 227, 1, True, True), ("conv2", 96, 256, 5, 27, 27, 2, True, True),
            ("conv3", 256, 384, 3, 13, 13, 1, False, False), ("conv4", 384, 384, 3, 13, 13, 2, False, False),
            ("conv5", 384, 256, 3, 13, 13, 2, False, True)]
    for name, cin, cout, k, hout, hin, groups, lrn, pool in spec:
        a = Acc()
        n = a.conv(cin, cout, k, hout, hin=hin, groups=groups, bias=True)
        a.act(n)
        if lrn:
            a.ew(2 * n)  # LRN: read + write (one pass, ASSUMPTION)
        if pool:
            pout = (hout - 3) // 2 + 1
            a.pool(n, cout * pout * pout)
        layers.append(a.layer(name))
    for name, fin, fout, relu in [("fc6", 9216, 4096, True), ("fc7", 4096, 4096, True), ("fc8", 4096, 1000, False)]:
        a = Acc()
        a.linear(fin, fout)
        if relu:
            a.act(2 * fout)  # ReLU + dropout
        layers.append(a.layer(name))
    return {"name": "alexnet", "source": "Krizhevsky, Sutskever & Hinton, 'ImageNet Classification with Deep "
            "Convolutional Neural Networks', NIPS 2012, Section 3.5 / Figure 2 shapes, both towers as one network "
            "(grouped conv2/4/5 as Caffe bvlc_alexnet); per-layer counts [derived]: 60,965,224 params, 0.724 GMACs. "
            "Published: '60 million parameters' (abstract); the paper gives no FLOPs. torchvision's alexnet is a "
            "different (one weird trick) variant: 61.1 M, 0.714 GMACs",
            "input": "one 227x227x3 image", "unit": "sample", "param_dtype": "fp32", "grad_dtype": "fp32",
            "saturation_batch": 64,
            "published": {"params": 60000000, "approximate": True,
                          "source": "Krizhevsky et al. 2012 abstract: 60 million parameters"},
            "layers": layers}


# ---------------------------------------------------------------- MobileNetV2 (torchvision)
def mobilenet_v2():
    layers = []
    a = Acc()
    conv_bn_relu(a, 3, 32, 3, 112, hin=224)
    layers.append(a.layer("stem"))
    cin, hw = 32, 112
    cfg = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
    for s, (t, c, n, stride) in enumerate(cfg, start=1):
        for i in range(n):
            a = Acc()
            st = stride if i == 0 else 1
            hid = cin * t
            hout = hw // st
            if t != 1:
                conv_bn_relu(a, cin, hid, 1, hw)
            conv_bn_relu(a, hid, hid, 3, hout, hin=hw, groups=hid)
            nout = conv_bn_relu(a, hid, c, 1, hout, relu=False)
            if st == 1 and cin == c:
                a.add(nout)
            layers.append(a.layer(f"stage{s}.{i}"))
            cin, hw = c, hout
    a = Acc()
    conv_bn_relu(a, 320, 1280, 1, 7)
    layers.append(a.layer("conv_last"))
    a = Acc()
    a.pool(1280 * 49, 1280)
    a.linear(1280, 1000)
    layers.append(a.layer("classifier"))
    return compact({"name": "mobilenet_v2", "source": "torchvision/models/mobilenetv2.py (width 1.0); totals: "
                    "torchvision metadata num_params 3,504,872, _ops 0.301 GMACs; per-stage table workloads.md B7.3 [derived]",
                    "input": "one 224x224x3 image", "unit": "sample", "param_dtype": "fp32", "grad_dtype": "fp32",
                    "saturation_batch": 64,
                    "published": {"params": 3504872, "fwd_gmacs": 0.301, "source": "torchvision metadata (workloads.md B7.3)"},
                    "layers": layers})


# ---------------------------------------------------------------- Inception-V3 (torchvision, with AuxLogits)
def inception_v3():
    layers = []

    def bc(a, cin, cout, k, hout, hin=None, kw=None):
        return conv_bn_relu(a, cin, cout, k, hout, hin=hin, kw=kw)

    a = Acc()
    bc(a, 3, 32, 3, 149, hin=299)
    bc(a, 32, 32, 3, 147, hin=149)
    bc(a, 32, 64, 3, 147)
    a.pool(64 * 147 * 147, 64 * 73 * 73)
    bc(a, 64, 80, 1, 73)
    bc(a, 80, 192, 3, 71, hin=73)
    a.pool(192 * 71 * 71, 192 * 35 * 35)
    layers.append(a.layer("stem"))

    def incA(name, cin, pf):
        a = Acc()
        s = 35
        bc(a, cin, 64, 1, s)
        bc(a, cin, 48, 1, s); bc(a, 48, 64, 5, s)
        bc(a, cin, 64, 1, s); bc(a, 64, 96, 3, s); bc(a, 96, 96, 3, s)
        a.pool(cin * s * s, cin * s * s); bc(a, cin, pf, 1, s)
        layers.append(a.layer(name))
        return 64 + 64 + 96 + pf

    c = incA("mixed_5b", 192, 32)
    c = incA("mixed_5c", c, 64)
    c = incA("mixed_5d", c, 64)
    a = Acc()
    bc(a, c, 384, 3, 17, hin=35)
    bc(a, c, 64, 1, 35); bc(a, 64, 96, 3, 35); bc(a, 96, 96, 3, 17, hin=35)
    a.pool(c * 35 * 35, c * 17 * 17)
    layers.append(a.layer("mixed_6a"))
    c = 768

    def incC(name, c7):
        a = Acc()
        s = 17
        bc(a, 768, 192, 1, s)
        bc(a, 768, c7, 1, s); bc(a, c7, c7, 1, s, kw=7); bc(a, c7, 192, 7, s, kw=1)
        bc(a, 768, c7, 1, s); bc(a, c7, c7, 7, s, kw=1); bc(a, c7, c7, 1, s, kw=7); bc(a, c7, c7, 7, s, kw=1)
        bc(a, c7, 192, 1, s, kw=7)
        a.pool(768 * s * s, 768 * s * s); bc(a, 768, 192, 1, s)
        layers.append(a.layer(name))

    incC("mixed_6b", 128)
    incC("mixed_6c", 160)
    incC("mixed_6d", 160)
    incC("mixed_6e", 192)
    a = Acc()  # auxiliary classifier (training only): avgpool 5/3 -> 5x5, 1x1 768->128, 5x5 128->768, fc 768->1000
    a.pool(768 * 17 * 17, 768 * 25)
    bc(a, 768, 128, 1, 5)
    bc(a, 128, 768, 5, 1, hin=5)
    a.linear(768, 1000)
    layers.append(a.layer("aux_logits"))
    a = Acc()
    bc(a, 768, 192, 1, 17); bc(a, 192, 320, 3, 8, hin=17)
    bc(a, 768, 192, 1, 17); bc(a, 192, 192, 1, 17, kw=7); bc(a, 192, 192, 7, 17, kw=1); bc(a, 192, 192, 3, 8, hin=17)
    a.pool(768 * 17 * 17, 768 * 64)
    layers.append(a.layer("mixed_7a"))

    def incE(name, cin):
        a = Acc()
        s = 8
        bc(a, cin, 320, 1, s)
        bc(a, cin, 384, 1, s); bc(a, 384, 384, 1, s, kw=3); bc(a, 384, 384, 3, s, kw=1)
        bc(a, cin, 448, 1, s); bc(a, 448, 384, 3, s); bc(a, 384, 384, 1, s, kw=3); bc(a, 384, 384, 3, s, kw=1)
        a.pool(cin * 64, cin * 64); bc(a, cin, 192, 1, s)
        layers.append(a.layer(name))

    incE("mixed_7b", 1280)
    incE("mixed_7c", 2048)
    a = Acc()
    a.pool(2048 * 64, 2048)
    a.linear(2048, 1000)
    layers.append(a.layer("fc"))
    return {"name": "inception_v3", "source": "torchvision/models/inception.py (Inception3 with AuxLogits, 299x299); "
            "per-layer counts [derived] from that definition; totals per docs/SOURCES.md#workload-specs: ~27 M params, "
            "~5.7 GMACs [verify] (torchvision metadata as recalled: 27,161,264 params, 5.71 GMACs)",
            "input": "one 299x299x3 image", "unit": "sample", "param_dtype": "fp32", "grad_dtype": "fp32",
            "saturation_batch": 32,
            "published": {"params": 27000000, "fwd_gmacs": 5.7, "approximate": True,
                          "source": "docs/SOURCES.md#workload-specs (~27 M, ~5.7 GMACs, [verify])"},
            "layers": layers}


# ---------------------------------------------------------------- transformer layers (per token)
def attn_block_elems(h, heads, s, cross=False):
    """Activation elements per token of one attention sub-block (post-LN), excluding the weight matmuls' own
    in/out (counted by Acc.linear): (score/context matmul elements, elementwise-kernel elements)."""
    mm = 2 * h + heads * s          # scores = Q K^T: read Q, K rows, write heads*s scores
    ew = 2 * heads * s              # softmax
    ew += 2 * heads * s             # dropout on probabilities
    mm += heads * s + h + h         # context = P V
    ew += 2 * h + 3 * h + 3 * h     # dropout, residual add, layer-norm
    return mm, ew


def attn_block(a, h, heads, s):
    mm, ew = attn_block_elems(h, heads, s)
    a.elems += mm
    a.ew(ew)


def encoder_layer(name, h, heads, s):
    a = Acc()
    a.linear(h, 3 * h)                                   # QKV
    a.macs += 2 * s * h                                  # QK^T and PV: 2*s*h MACs per token (4*s*h FLOPs)
    attn_block(a, h, heads, s)
    a.linear(h, h)                                       # attention output
    a.params += 2 * h                                    # LN
    a.linear(h, 4 * h)
    a.ew(2 * 4 * h)                                      # GELU
    a.linear(4 * h, h)
    a.ew(2 * h + 3 * h + 3 * h)                          # dropout, residual, LN
    a.params += 2 * h
    return a.layer(name)


def decoder_layer(name, h, heads, s):
    a = Acc()
    a.linear(h, 3 * h)
    a.macs += 2 * s * h
    attn_block(a, h, heads, s)
    a.linear(h, h)
    a.params += 2 * h
    a.linear(h, h)                                       # cross-attention Q
    a.linear(h, 2 * h)                                   # cross-attention K, V (from encoder output)
    a.macs += 2 * s * h
    attn_block(a, h, heads, s)
    a.linear(h, h)
    a.params += 2 * h
    a.linear(h, 4 * h)
    a.ew(2 * 4 * h)
    a.linear(4 * h, h)
    a.ew(2 * h + 3 * h + 3 * h)
    a.params += 2 * h
    return a.layer(name)


def bert(name, L, h, heads, published, s=128, vocab=30522):
    layers = []
    a = Acc()
    a.params = vocab * h
    a.macs = vocab * h                                   # tied MLM decoder h->vocab on every token (HF BertForPreTraining)
    a.elems = vocab                                      # decoder logits (matmul output)
    a.ew(h + 2 * vocab)                                  # gather row; softmax
    layers.append(a.layer("embeddings.word", sparse=True, embedding_rows=vocab))
    a = Acc()
    a.params = 512 * h + 2 * h + 2 * h
    a.ew(3 * h + 3 * h + 2 * h)                          # sum of three embeddings, LN, dropout
    layers.append(a.layer("embeddings.position_type_ln"))
    ly = encoder_layer("encoder.{i}", h, heads, s)
    ly["repeat"] = L
    ly["index_from"] = 0
    layers.append(ly)
    a = Acc()
    a.params = h * h + h
    a.macs = h * h // s                                  # pooler runs on the [CLS] token only: per token = h^2/s
    a.elems = 2 * h // s
    layers.append(a.layer("pooler"))
    return {"name": name, "source": "HF/Google BERT layout (vocab 30,522, 512 positions, 2 token types, FFN 4h); "
            "parameter split workloads.md B7.4 [derived]; attention-score FLOPs 4*s*h per layer per token forward "
            "(workloads.md B7.4: ~12*L*h*s forward+backward); the word-embedding layer carries the FLOPs of the tied "
            "MLM decoder (2*h*vocab per token, pretraining head applied to every token as HF BertForPreTraining), "
            "which makes forward ~= 2N per token as B7.4 states; the MLM transform (h*h+LN) and decoder bias are not "
            "in the published total and are left out",
            "input": f"one sequence of {s} tokens (pretraining phase 1)", "unit": "token", "tokens_per_sample": s,
            "param_dtype": "fp32", "grad_dtype": "fp32", "saturation_batch": 8192,
            "published": published, "layers": layers}


def transformer_big(s=32):
    h, heads, vocab = 1024, 16, 37000
    layers = []
    a = Acc()
    a.params = vocab * h
    a.macs = vocab * h                                   # tied output projection (pre-softmax) per target token
    a.elems = vocab                                      # logits (matmul output)
    a.ew(2 * h + 2 * vocab)                              # gathers; softmax
    layers.append(a.layer("embeddings.shared", sparse=True, embedding_rows=vocab))
    a = Acc()
    a.ew(2 * (3 * h + 2 * h))                            # scale + positional add + dropout, source and target side
    layers.append(a.layer("embeddings.positional"))
    enc = encoder_layer("encoder.{i}", h, heads, s)
    enc["repeat"], enc["index_from"] = 6, 0
    layers.append(enc)
    dec = decoder_layer("decoder.{i}", h, heads, s)
    dec["repeat"], dec["index_from"] = 6, 0
    layers.append(dec)
    return {"name": "transformer_big", "source": "Vaswani et al. 2017 Transformer (big): 6+6 layers, d 1024, FFN 4096, "
            "16 heads, shared 37,000 BPE embedding (workloads.md B7.5 [derived]: encoder layer 12,596,224, decoder layer "
            "16,796,672, total 214.2 M); sinusoidal positions carry no parameters",
            "input": f"one target token with its matching source token (sentence length {s} assumed for the attention "
                     "terms [assumption]); DLE batches are 10,240 tokens per GPU", "unit": "token",
            "tokens_per_sample": s, "param_dtype": "fp32", "grad_dtype": "fp32", "saturation_batch": 4096,
            "published": {"params": 214200000, "approximate": True,
                          "source": "workloads.md B7.5: total 214.2 M with a 37,000 vocab (paper: 213 M)"},
            "layers": layers}


def gpt3(name, L, d, heads, published, s=2048, vocab=50257):
    layers = []
    a = Acc()
    a.params = vocab * d
    a.macs = vocab * d                                   # tied de-embedding d->vocab per token (Kaplan et al. 2020 Tab. 1)
    a.elems = vocab
    a.ew(d + 2 * vocab)
    layers.append(a.layer("embeddings.token", sparse=True, embedding_rows=vocab))
    a = Acc()
    a.params = s * d
    a.ew(3 * d + 2 * d)
    layers.append(a.layer("embeddings.position"))
    ly = encoder_layer("layer.{i}", d, heads, s)        # pre-LN decoder block has the same shapes: 12 d^2 + 13 d
    ly["repeat"], ly["index_from"] = L, 0
    layers.append(ly)
    a = Acc()
    a.params = 2 * d
    a.ew(3 * d)
    layers.append(a.layer("final_ln"))
    return {"name": name, "source": "Brown et al. 2020 (GPT-3) Table 2.1 via workloads.md B7.6: context 2,048, vocab "
            "50,257; per layer 12*d^2 + 13*d; learned positions 2,048*d; attention-score FLOPs 4*s*d per layer per "
            "token forward (full s x s as Megatron computes it; Narayanan et al. SC21 eq. for 72*B*s*L*h^2*(1+s/6h+V/12hL))",
            "input": f"one sequence of {s} tokens", "unit": "token", "tokens_per_sample": s,
            "param_dtype": "fp32", "grad_dtype": "fp32", "saturation_batch": 8192,
            "published": published, "layers": layers}


def build_models():
    return [
        resnet([3, 4, 6, 3], "resnet50",
               "torchvision/models/resnet.py resnet50 (v1.5: stride on the 3x3); per-block table workloads.md B7.1 "
               "[derived]; totals torchvision metadata num_params 25,557,032, _ops 4.089 GMACs",
               {"params": 25557032, "fwd_gmacs": 4.089, "source": "torchvision metadata (workloads.md B7.1)"}),
        resnet([3, 4, 23, 3], "resnet101",
               "torchvision/models/resnet.py resnet101 (v1.5 layout); per-block counts [derived] from that definition; "
               "totals per docs/SOURCES.md#workload-specs: 44.5 M params, ~7.8 GMACs (torchvision, recalled)",
               {"params": 44500000, "fwd_gmacs": 7.8, "approximate": True,
                "source": "docs/SOURCES.md#workload-specs (44.5 M; ~7.8 GMACs, torchvision recalled totals)"}),
        vgg16(),
        vgg19(),
        googlenet(),
        alexnet(),
        inception_v3(),
        mobilenet_v2(),
        bert("bert_base", 12, 768, 12, {"params": 109482240, "source": "workloads.md B7.4 [derived] (~110 M)"}),
        bert("bert_large", 24, 1024, 16, {"params": 335141888, "source": "workloads.md B7.4 [derived] (~340 M)"}),
        transformer_big(),
        gpt3("gpt3_small", 12, 768, 12, {"params": 125000000, "approximate": True,
                                          "source": "GPT-3 paper Table 2.1: 125M (workloads.md B7.6)"}),
        gpt3("gpt3_medium", 24, 1024, 16, {"params": 350000000, "approximate": True,
                                            "source": "GPT-3 paper Table 2.1: 350M (workloads.md B7.6)"}),
        gpt3("gpt3_xl", 24, 2048, 24, {"params": 1300000000, "approximate": True,
                                        "source": "GPT-3 paper Table 2.1: 1.3B (workloads.md B7.6)"}),
    ]


def with_unfused(fused, unfused):
    """Adds "unfused_elementwise_bytes" (the FUSE_BN_ACT = False count: BN, ReLU and residual add as separate
    kernels, as MKL-DNN v0.x runs them on CPUs) to each layer whose count differs from the fused one."""
    for mf, mu in zip(fused, unfused):
        for i, (lf, lu) in enumerate(zip(mf["layers"], mu["layers"])):
            ew_u = lu.get("elementwise_bytes", 0)
            if ew_u == lf.get("elementwise_bytes", 0):
                continue
            d = {}
            for k, v in lf.items():
                d[k] = v
                if k == "elementwise_bytes":
                    d["unfused_elementwise_bytes"] = ew_u
            mf["layers"][i] = d
    return fused


def main(outdir):
    global FUSE_BN_ACT
    FUSE_BN_ACT = False
    unfused = build_models()
    FUSE_BN_ACT = True
    models = with_unfused(build_models(), unfused)
    for m in models:
        m["notes"] = ("bytes = activation bytes read+written per " + m["unit"] + " at 4 B/element, an ESTIMATE "
                           "from the layer shapes (tools/generate_models.py counting rules); weights excluded")
        if "saturation_batch" in m:
            m["saturation_batch"] = {"value": m["saturation_batch"], "source": "[assumption] batch (in " + m["unit"] + "s) that fills an A100 (108 SMs); "
                                            "below it step time stays flat, as the MISO A100 7g step times show "
                                            "(docs/SOURCES.md#mig-vgpu: RN50 bs64..256 28.3..31.4 ms)"}
        total_p = 0
        total_m = 0
        for l in m["layers"]:
            r = l.get("repeat", 1)
            total_p += r * l["params"]
            total_m += r * l["fwd_flops"] // 2
        print(f"{m['name']:16s} params {total_p:>14,d}  fwd GMACs/{m['unit']} {total_m / 1e9:8.4f}", file=sys.stderr)
        ordered = {k: m[k] for k in ["name", "source", "input", "unit", "tokens_per_sample", "param_dtype", "grad_dtype",
                                     "saturation_batch", "notes", "published", "layers"]
                   if k in m}
        with open(f"{outdir}/{m['name']}.json", "w") as f:
            f.write("{\n")
            keys = list(ordered)
            for i, k in enumerate(keys):
                sep = "," if i + 1 < len(keys) else ""
                if k == "layers":
                    f.write('  "layers": [\n')
                    for j, l in enumerate(ordered[k]):
                        f.write("    " + json.dumps(l) + ("," if j + 1 < len(ordered[k]) else "") + "\n")
                    f.write("  ]" + sep + "\n")
                else:
                    f.write(f"  {json.dumps(k)}: {json.dumps(ordered[k])}{sep}\n")
            f.write("}\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
