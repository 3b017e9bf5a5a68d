"""What student code may reach in torch: the screen's allowlist of its modules, functions, classes and values.

For the source screen (`allowlist` reads it) and for instructors who want to know what a submission
may use. torch's functions are its ATen operators, the tensor computations every exercise is made of
(`torch._C._VariableFunctions` of torch 2.13, less `from_file` and `frombuffer`, which read files and
raw memory), and the few functions written in Python that honest notebooks call (seeds, threads,
`compile`, `no_grad`, ...). Its modules are the computing ones (`nn`, `nn.functional`, `nn.init`,
`linalg`, `fft`, `special`, `distributions`, `optim`, `autograd`, `cuda`'s queries, `utils.data`):
not its machinery (`torch._C`, `library`, `ops`, `overrides`, `jit`, `fx`, `hub`, `package`,
`utils.benchmark`, `utils.collect_env`, ...), which run code from strings, start processes or change
torch itself. A "class" is a class whose attributes can be set (torch.Tensor, nn.Linear): the screen
allows it called, subclassed and tested against, never handed around as a value; a "value" is
anything else (dtypes, torch.Generator, torch.Size: the interpreter fixes their types).
`tests/grader/judge/test_screen_allowlist.py` checks, at each torch upgrade, that every name here exists.
"""

MODULES = frozenset("""
    torch torch.accelerator torch.amp torch.autograd torch.autograd.functional torch.autograd.graph torch.backends
    torch.backends.cuda torch.backends.cuda.matmul torch.backends.cudnn torch.backends.mps torch.cuda torch.cuda.amp
    torch.distributions torch.fft torch.linalg torch.mps torch.nn torch.nn.attention torch.nn.functional
    torch.nn.init torch.nn.utils torch.nn.utils.rnn torch.optim torch.optim.lr_scheduler torch.profiler torch.random
    torch.special torch.testing torch.utils torch.utils.data torch.utils.flop_counter
""".split())

FUNCTIONS = {
    "torch": """
        abs abs_ absolute acos acos_ acosh acosh_ adaptive_avg_pool1d adaptive_max_pool1d add addbmm addcdiv addcmul
        addmm addmv addmv_ addr adjoint affine_grid_generator alias_copy all allclose alpha_dropout alpha_dropout_
        amax amin aminmax angle any arange arccos arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh arcsinh_ arctan
        arctan2 arctan_ arctanh arctanh_ are_deterministic_algorithms_enabled argmax argmin argsort argwhere
        as_strided as_strided_ as_strided_copy as_strided_scatter as_tensor asarray asin asin_ asinh asinh_ atan
        atan2 atan_ atanh atanh_ atleast_1d atleast_2d atleast_3d avg_pool1d baddbmm bartlett_window batch_norm
        batch_norm_backward_elemt batch_norm_backward_reduce batch_norm_elemt batch_norm_gather_stats
        batch_norm_gather_stats_with_counts batch_norm_stats batch_norm_update_stats bernoulli bilinear
        binary_cross_entropy_with_logits bincount binomial bitwise_and bitwise_left_shift bitwise_not bitwise_or
        bitwise_right_shift bitwise_xor blackman_window block_diag bmm broadcast_shapes broadcast_tensors
        broadcast_to bucketize can_cast cartesian_prod cat ccol_indices_copy cdist ceil ceil_ celu celu_
        chain_matmul channel_shuffle cholesky cholesky_inverse cholesky_solve choose_qparams_optimized chunk clamp
        clamp_ clamp_max clamp_max_ clamp_min clamp_min_ clip clip_ clone col_indices_copy column_stack combinations
        compile complex concat concatenate conj conj_physical conj_physical_ constant_pad_nd conv1d conv2d conv3d
        conv_tbc conv_transpose1d conv_transpose2d conv_transpose3d convolution copysign corrcoef cos cos_ cosh
        cosh_ cosine_embedding_loss cosine_similarity count_nonzero cov cross crow_indices_copy ctc_loss
        cudnn_affine_grid_generator cudnn_batch_norm cudnn_convolution cudnn_convolution_add_relu
        cudnn_convolution_relu cudnn_convolution_transpose cudnn_grid_sampler cudnn_is_acceptable cummax cummin
        cumprod cumsum cumulative_trapezoid deg2rad deg2rad_ dequantize det detach detach_ detach_copy diag
        diag_embed diagflat diagonal diagonal_copy diagonal_scatter diff digamma dist div divide dot dropout
        dropout_ dsmm dsplit dstack einsum embedding embedding_bag embedding_renorm_ empty empty_like empty_permuted
        empty_quantized empty_strided eq equal erf erf_ erfc erfc_ erfinv exp exp2 exp2_ exp_ expand_copy expm1
        expm1_ eye fake_quantize_per_channel_affine fake_quantize_per_tensor_affine fbgemm_linear_fp16_weight
        fbgemm_linear_fp16_weight_fp32_activation fbgemm_linear_int8_weight
        fbgemm_linear_int8_weight_fp32_activation fbgemm_linear_quantize_weight fbgemm_pack_gemm_matrix_fp16
        fbgemm_pack_quantized_matrix feature_alpha_dropout feature_alpha_dropout_ feature_dropout feature_dropout_
        fill fill_ fix fix_ flatten flip fliplr flipud float_power floor floor_ floor_divide fmax fmin fmod frac
        frac_ frexp frobenius_norm from_numpy full full_like fused_moving_avg_obs_fake_quant gather gcd gcd_ ge
        geqrf ger get_autocast_dtype get_default_dtype get_device get_float32_matmul_precision
        get_num_interop_threads get_num_threads get_rng_state gradient greater greater_equal grid_sampler
        grid_sampler_2d grid_sampler_3d group_norm gru gru_cell gt hamming_window hann_window hardshrink hash_tensor
        heaviside hinge_embedding_loss histc histogram histogramdd hsmm hsplit hspmm hstack hypot i0 i0_ igamma
        igammac imag index_add index_copy index_fill index_put index_put_ index_reduce index_select indices_copy
        initial_seed inner instance_norm int_repr inverse is_autocast_enabled is_complex is_conj is_distributed
        is_floating_point is_grad_enabled is_inference is_inference_mode_enabled is_neg is_nonzero is_same_size
        is_signed is_tensor is_vulkan_available isclose isfinite isin isinf isnan isneginf isposinf isreal istft
        kaiser_window kl_div kron kthvalue layer_norm lcm lcm_ ldexp ldexp_ le lerp less less_equal lgamma linspace
        lobpcg log log10 log10_ log1p log1p_ log2 log2_ log_ log_softmax logaddexp logaddexp2 logcumsumexp logdet
        logical_and logical_not logical_or logical_xor logit logit_ logspace logsumexp lstm lstm_cell lt lu lu_solve
        lu_unpack manual_seed margin_ranking_loss masked_fill masked_scatter masked_select matmul matrix_exp
        matrix_power max max_pool1d max_pool1d_with_indices max_pool2d max_pool3d maximum mean median meshgrid min
        minimum miopen_batch_norm miopen_convolution miopen_convolution_add_relu miopen_convolution_relu
        miopen_convolution_transpose miopen_ctc_loss miopen_depthwise_convolution miopen_rnn
        mkldnn_adaptive_avg_pool2d mkldnn_convolution mkldnn_linear_backward_weights mkldnn_max_pool2d
        mkldnn_max_pool3d mkldnn_rnn_layer mm mode moveaxis movedim msort mul multinomial multiply mv mvlgamma
        nan_to_num nan_to_num_ nanmean nanmedian nanquantile nansum narrow narrow_copy native_batch_norm
        native_channel_shuffle native_dropout native_group_norm native_layer_norm native_norm ne neg neg_ negative
        negative_ nextafter nonzero nonzero_static norm norm_except_dim normal not_equal nuclear_norm numel ones
        ones_like orgqr ormqr outer pairwise_distance pca_lowrank pdist permute permute_copy pinverse pixel_shuffle
        pixel_unshuffle poisson poisson_nll_loss polar polygamma positive pow prelu prod promote_types put
        q_per_channel_axis q_per_channel_scales q_per_channel_zero_points q_scale q_zero_point qr quantile
        quantize_per_channel quantize_per_tensor quantize_per_tensor_dynamic quantized_batch_norm quantized_gru_cell
        quantized_lstm_cell quantized_max_pool1d quantized_max_pool2d quantized_max_pool3d quantized_rnn_relu_cell
        quantized_rnn_tanh_cell rad2deg rad2deg_ rand rand_like randint randint_like randn randn_like randperm range
        ravel real reciprocal reciprocal_ relu relu_ remainder renorm repeat_interleave reshape resize_as_
        resize_as_sparse_ resolve_conj resolve_neg result_type rms_norm rnn_relu rnn_relu_cell rnn_tanh
        rnn_tanh_cell roll rot90 round round_ row_indices_copy row_stack rrelu rrelu_ rsqrt rsqrt_ rsub saddmm
        scalar_tensor scatter scatter_add scatter_reduce searchsorted seed segment_reduce select select_copy
        select_scatter selu selu_ set_float32_matmul_precision set_num_threads set_printoptions set_rng_state sgn
        sigmoid sigmoid_ sign signbit sin sin_ sinc sinc_ sinh sinh_ slice_copy slice_inverse slice_scatter slogdet
        smm softmax sort sparse_bsc_tensor sparse_bsr_tensor sparse_compressed_tensor sparse_coo_tensor
        sparse_csc_tensor sparse_csr_tensor split split_copy split_with_sizes split_with_sizes_copy spmm sqrt sqrt_
        square square_ squeeze squeeze_copy sspaddmm stack std std_mean stft sub subtract sum svd svd_lowrank
        swapaxes swapdims sym_constrain_range sym_constrain_range_for_size t t_copy take take_along_dim tan tan_
        tanh tanh_ tensor tensor_split tensordot threshold threshold_ tile topk trace transpose transpose_copy
        trapezoid trapz triangular_solve tril tril_indices triplet_margin_loss triu triu_indices true_divide trunc
        trunc_ typename unbind unbind_copy unflatten unfold_copy unique unique_consecutive unravel_index
        unsafe_chunk unsafe_split unsafe_split_with_sizes unsqueeze unsqueeze_copy use_deterministic_algorithms
        values_copy vander var var_mean vdot view_as_complex view_as_complex_copy view_as_real view_as_real_copy
        view_copy vmap vsplit vstack where xlogy xlogy_ zero_ zeros zeros_like""",
    "torch.accelerator": "current_accelerator device_count is_available",
    "torch.autograd": "backward grad gradcheck gradgradcheck",
    "torch.autograd.functional": "hessian hvp jacobian jvp vhp vjp",
    "torch.backends.cuda": "flash_sdp_enabled is_built math_sdp_enabled mem_efficient_sdp_enabled",
    "torch.backends.cudnn": "is_available version",
    "torch.backends.mps": "is_available is_built",
    "torch.cuda": """
        current_device device_count empty_cache get_device_capability get_device_name get_device_properties
        is_available is_bf16_supported manual_seed manual_seed_all max_memory_allocated max_memory_reserved
        memory_allocated memory_reserved reset_peak_memory_stats synchronize""",
    "torch.distributions": "biject_to identity_transform kl_divergence transform_to",
    "torch.fft": """
        fft fft2 fftfreq fftn fftshift hfft ifft ifft2 ifftn ifftshift ihfft irfft irfft2 irfftn rfft rfft2 rfftfreq
        rfftn""",
    "torch.linalg": """
        cholesky cholesky_ex cond cross det diagonal eig eigh eigvals eigvalsh householder_product inv inv_ex
        ldl_factor ldl_factor_ex ldl_solve lstsq lu lu_factor lu_factor_ex lu_solve matmul matrix_exp matrix_norm
        matrix_power matrix_rank multi_dot norm pinv qr slogdet solve solve_ex solve_triangular svd svdvals
        tensorinv tensorsolve vander vecdot vector_norm""",
    "torch.mps": "empty_cache is_available manual_seed synchronize",
    "torch.nn.attention": "sdpa_kernel",
    "torch.nn.functional": """
        adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d
        adaptive_max_pool1d_with_indices adaptive_max_pool2d adaptive_max_pool2d_with_indices adaptive_max_pool3d
        adaptive_max_pool3d_with_indices affine_grid alpha_dropout avg_pool1d avg_pool2d avg_pool3d batch_norm
        bilinear binary_cross_entropy binary_cross_entropy_with_logits celu celu_ channel_shuffle conv1d conv2d
        conv3d conv_tbc conv_transpose1d conv_transpose2d conv_transpose3d cosine_embedding_loss cosine_similarity
        cross_entropy ctc_loss dropout dropout1d dropout2d dropout3d elu elu_ embedding embedding_bag
        feature_alpha_dropout fold fractional_max_pool2d fractional_max_pool2d_with_indices fractional_max_pool3d
        fractional_max_pool3d_with_indices gaussian_nll_loss gelu glu grid_sample group_norm grouped_mm
        gumbel_softmax hardshrink hardsigmoid hardswish hardtanh hardtanh_ hinge_embedding_loss huber_loss
        instance_norm interpolate kl_div l1_loss layer_norm leaky_relu leaky_relu_ linear linear_cross_entropy
        local_response_norm log_softmax logsigmoid lp_pool1d lp_pool2d lp_pool3d margin_ranking_loss max_pool1d
        max_pool1d_with_indices max_pool2d max_pool2d_with_indices max_pool3d max_pool3d_with_indices max_unpool1d
        max_unpool2d max_unpool3d mish mse_loss multi_head_attention_forward multi_margin_loss
        multilabel_margin_loss multilabel_soft_margin_loss native_channel_shuffle nll_loss normalize one_hot pad
        pairwise_distance pdist pixel_shuffle pixel_unshuffle poisson_nll_loss prelu relu relu6 relu_ rms_norm rrelu
        rrelu_ scaled_dot_product_attention scaled_grouped_mm scaled_mm selu selu_ sigmoid silu smooth_l1_loss
        soft_margin_loss softmax softmin softplus softshrink softsign tanh tanhshrink threshold threshold_
        triplet_margin_loss triplet_margin_with_distance_loss unfold upsample upsample_bilinear upsample_nearest""",
    "torch.nn.init": """
        calculate_gain constant constant_ dirac dirac_ eye eye_ kaiming_normal kaiming_normal_ kaiming_uniform
        kaiming_uniform_ normal normal_ ones_ orthogonal orthogonal_ sparse sparse_ trunc_normal_ uniform uniform_
        xavier_normal xavier_normal_ xavier_uniform xavier_uniform_ zeros_""",
    "torch.nn.utils": "clip_grad_norm_ clip_grad_value_ parameters_to_vector vector_to_parameters",
    "torch.nn.utils.rnn": "pack_padded_sequence pack_sequence pad_packed_sequence pad_sequence",
    "torch.profiler": "schedule",
    "torch.random": "fork_rng get_rng_state initial_seed manual_seed seed set_rng_state",
    "torch.special": """
        airy_ai bessel_j0 bessel_j1 bessel_y0 bessel_y1 chebyshev_polynomial_t chebyshev_polynomial_u
        chebyshev_polynomial_v chebyshev_polynomial_w digamma entr erf erfc erfcx erfinv exp2 expit expm1 gammainc
        gammaincc gammaln hermite_polynomial_h hermite_polynomial_he i0 i0e i1 i1e laguerre_polynomial_l
        legendre_polynomial_p log1p log_ndtr log_softmax logit logsumexp modified_bessel_i0 modified_bessel_i1
        modified_bessel_k0 modified_bessel_k1 multigammaln ndtr ndtri polygamma psi round scaled_modified_bessel_k0
        scaled_modified_bessel_k1 shifted_chebyshev_polynomial_t shifted_chebyshev_polynomial_u
        shifted_chebyshev_polynomial_v shifted_chebyshev_polynomial_w sinc softmax spherical_bessel_j0 xlog1py xlogy
        zeta""",
    "torch.testing": "assert_close make_tensor",
    "torch.utils.data": "default_collate random_split",
}

CLASSES = {
    "torch": "OutOfMemoryError Tensor autocast enable_grad inference_mode no_grad set_grad_enabled",
    "torch.amp": "GradScaler autocast",
    "torch.autograd": """
        Function detect_anomaly enable_grad inference_mode no_grad set_detect_anomaly set_grad_enabled""",
    "torch.autograd.graph": "saved_tensors_hooks",
    "torch.cuda": "Event OutOfMemoryError",
    "torch.cuda.amp": "GradScaler autocast",
    "torch.distributions": """
        AbsTransform AffineTransform Bernoulli Beta Binomial CatTransform Categorical Cauchy Chi2 ComposeTransform
        ContinuousBernoulli CorrCholeskyTransform CumulativeDistributionTransform Dirichlet Distribution
        ExpTransform Exponential ExponentialFamily FisherSnedecor Gamma GeneralizedPareto Geometric Gumbel
        HalfCauchy HalfNormal Independent IndependentTransform InverseGamma Kumaraswamy LKJCholesky Laplace
        LogNormal LogisticNormal LowRankMultivariateNormal LowerCholeskyTransform MixtureSameFamily Multinomial
        MultivariateNormal NegativeBinomial Normal OneHotCategorical OneHotCategoricalStraightThrough Pareto Poisson
        PositiveDefiniteTransform PowerTransform RelaxedBernoulli RelaxedOneHotCategorical ReshapeTransform
        SigmoidTransform SoftmaxTransform SoftplusTransform StackTransform StickBreakingTransform StudentT
        TanhTransform Transform TransformedDistribution Uniform VonMises Weibull Wishart""",
    "torch.linalg": "LinAlgError",
    "torch.nn": """
        AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveLogSoftmaxWithLoss AdaptiveMaxPool1d
        AdaptiveMaxPool2d AdaptiveMaxPool3d AlphaDropout AvgPool1d AvgPool2d AvgPool3d BCELoss BCEWithLogitsLoss
        BatchNorm1d BatchNorm2d BatchNorm3d Bilinear Buffer CELU CTCLoss ChannelShuffle CircularPad1d CircularPad2d
        CircularPad3d ConstantPad1d ConstantPad2d ConstantPad3d Container Conv1d Conv2d Conv3d ConvTranspose1d
        ConvTranspose2d ConvTranspose3d CosineEmbeddingLoss CosineSimilarity CrossEntropyLoss CrossMapLRN2d
        DataParallel Dropout Dropout1d Dropout2d Dropout3d ELU Embedding EmbeddingBag FeatureAlphaDropout Flatten
        Fold FractionalMaxPool2d FractionalMaxPool3d GELU GLU GRU GRUCell GaussianNLLLoss GroupNorm Hardshrink
        Hardsigmoid Hardswish Hardtanh HingeEmbeddingLoss HuberLoss Identity InstanceNorm1d InstanceNorm2d
        InstanceNorm3d KLDivLoss L1Loss LPPool1d LPPool2d LPPool3d LSTM LSTMCell LayerNorm LazyBatchNorm1d
        LazyBatchNorm2d LazyBatchNorm3d LazyConv1d LazyConv2d LazyConv3d LazyConvTranspose1d LazyConvTranspose2d
        LazyConvTranspose3d LazyInstanceNorm1d LazyInstanceNorm2d LazyInstanceNorm3d LazyLinear LeakyReLU Linear
        LinearCrossEntropyLoss LinearCrossEntropyOptions LocalResponseNorm LogSigmoid LogSoftmax MSELoss
        MarginRankingLoss MaxPool1d MaxPool2d MaxPool3d MaxUnpool1d MaxUnpool2d MaxUnpool3d Mish Module ModuleDict
        ModuleList MultiLabelMarginLoss MultiLabelSoftMarginLoss MultiMarginLoss MultiheadAttention NLLLoss
        NLLLoss2d PReLU PairwiseDistance Parameter ParameterDict ParameterList PixelShuffle PixelUnshuffle
        PoissonNLLLoss RMSNorm RNN RNNBase RNNCell RNNCellBase RReLU ReLU ReLU6 ReflectionPad1d ReflectionPad2d
        ReflectionPad3d ReplicationPad1d ReplicationPad2d ReplicationPad3d SELU Sequential SiLU Sigmoid SmoothL1Loss
        SoftMarginLoss Softmax Softmax2d Softmin Softplus Softshrink Softsign SyncBatchNorm Tanh Tanhshrink
        Threshold Transformer TransformerDecoder TransformerDecoderLayer TransformerEncoder TransformerEncoderLayer
        TripletMarginLoss TripletMarginWithDistanceLoss Unflatten Unfold UninitializedBuffer UninitializedParameter
        Upsample UpsamplingBilinear2d UpsamplingNearest2d ZeroPad1d ZeroPad2d ZeroPad3d""",
    "torch.nn.attention": "SDPBackend",
    "torch.optim": """
        ASGD Adadelta Adafactor Adagrad Adam AdamW Adamax LBFGS Muon NAdam Optimizer RAdam RMSprop Rprop SGD
        SparseAdam""",
    "torch.optim.lr_scheduler": """
        ChainedScheduler ConstantLR CosineAnnealingLR CosineAnnealingWarmRestarts CyclicLR ExponentialLR LRScheduler
        LambdaLR LinearLR MultiStepLR MultiplicativeLR OneCycleLR PolynomialLR ReduceLROnPlateau SequentialLR StepLR""",
    "torch.profiler": "ProfilerActivity profile record_function",
    "torch.utils.data": """
        BatchSampler ConcatDataset DataLoader Dataset IterableDataset RandomSampler Sampler SequentialSampler Subset
        TensorDataset""",
    "torch.utils.flop_counter": "FlopCounterMode",
}

VALUES = {
    "torch": """
        BFloat16Tensor BoolTensor ByteTensor CharTensor DoubleTensor FloatTensor Generator HalfTensor IntTensor
        LongTensor ShortTensor Size bfloat16 bit bits16 bits1x8 bits2x4 bits4x2 bits8 bool cdouble cfloat chalf
        channels_last complex128 complex32 complex64 contiguous_format device double dtype e finfo float float16
        float32 float4_e2m1fn_x2 float64 float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float8_e8m0fnu
        half iinfo inf int int1 int16 int2 int3 int32 int4 int5 int6 int64 int7 int8 long nan newaxis pi
        preserve_format qint32 qint8 quint2x4 quint4x2 quint8 short strided uint1 uint16 uint2 uint3 uint32 uint4
        uint5 uint6 uint64 uint7 uint8""",
}
