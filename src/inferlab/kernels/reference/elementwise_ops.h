// Registration of the elementwise-area reference kernels (elementwise math,
// activations, broadcasting binary and variadic ops, Cast, reductions,
// ArgMax/ArgMin, CumSum, Softmax): one line per operator or family in
// elementwise_ops.cc. The factories below live in the files named beside them.
#pragma once

#include <vector>

#include "inferlab/kernels/registry.h"

namespace inferlab::kernels::reference {

void register_elementwise_ops(OpRegistry& registry);

// unary_math.cc: Abs Ceil Cos Erf Exp Floor Log Neg Not Reciprocal Relu Round Sigmoid Sign Sin Sqrt
// Tanh
std::vector<OpKernel> unary_math_kernels();
// activations.cc: Elu HardSigmoid HardSwish LeakyRelu Selu Softplus Softsign ThresholdedRelu
std::vector<OpKernel> activation_kernels();
OpKernel hard_swish_kernel();  // activations.cc; also ai.inferlab::HardSwish's
OpKernel clip_kernel();        // clip.cc
OpKernel prelu_kernel();       // prelu.cc
// binary_ops.cc: Add Sub Mul Div Mod Equal Greater GreaterOrEqual Less LessOrEqual And Or Xor
std::vector<OpKernel> binary_kernels();
OpKernel pow_kernel();  // pow.cc
// variadic_ops.cc: Max Min Mean Sum; and Where
std::vector<OpKernel> variadic_kernels();
OpKernel where_kernel();
OpKernel cast_kernel();       // cast.cc
OpKernel cast_like_kernel();  // cast.cc
// reduce.cc: ReduceL1 ReduceL2 ReduceLogSumExp ReduceMax ReduceMin ReduceMean ReduceProd ReduceSum
// ReduceSumSquare
std::vector<OpKernel> reduce_kernels();
OpKernel arg_max_kernel();      // arg_reduce.cc
OpKernel arg_min_kernel();      // arg_reduce.cc
OpKernel cumsum_kernel();       // cumsum.cc
OpKernel softmax_kernel();      // softmax.cc
OpKernel log_softmax_kernel();  // softmax.cc

}  // namespace inferlab::kernels::reference
