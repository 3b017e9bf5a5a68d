"""The method names a student's code may call on its values, whatever they are.

For the source screen. A value's type is not known before the code runs (`x.sum()` on a parameter
`x`), so a method call on a value passes when its name is one of these: the public methods and
attributes of torch's tensors, modules, optimizers and generators, numpy's arrays, Python's own
values, threads, matplotlib's figures and axes, tqdm's bars, sacreBLEU's scores, the parts of torch's own
layers, the profiler's results (less `savefig`,
`tofile`, `dump` and `dumps`, which write files and pickles, and `format`, which the screen reads
itself: its fields reach attributes by name). Names that the submission's classes, the notebook's
own cells and the course's notebook modules define pass too (`allowlist.method_names`).
"""

METHODS = frozenset(" ".join((
    # tensors (torch.Tensor, torch.Size, dtype, device, finfo, Generator)
    """
    H T abbr abs abs_ absolute absolute_ acos acos_ acosh acosh_ add add_ addbmm addbmm_ addcdiv addcdiv_
    addcmul addcmul_ addmm addmm_ addmv addmv_ addr addr_ adjoint all allclose amax amin aminmax angle any
    apply_ arccos arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh arcsinh_ arctan arctan2 arctan2_ arctan_
    arctanh arctanh_ argmax argmin argsort argwhere as_strided as_strided_ as_strided_scatter as_subclass asin
    asin_ asinh asinh_ atan atan2 atan2_ atan_ atanh atanh_ backward baddbmm baddbmm_ bernoulli bernoulli_
    bfloat16 bincount bits bitwise_and bitwise_and_ bitwise_left_shift bitwise_left_shift_ bitwise_not
    bitwise_not_ bitwise_or bitwise_or_ bitwise_right_shift bitwise_right_shift_ bitwise_xor bitwise_xor_ bmm
    bool broadcast_to byte cauchy_ ccol_indices cdouble ceil ceil_ cfloat chalf char cholesky cholesky_inverse
    cholesky_solve chunk clamp clamp_ clamp_max clamp_max_ clamp_min clamp_min_ clip clip_ clone clone_state
    coalesce col_indices conj conj_physical conj_physical_ const_data_ptr contiguous copy_ copysign copysign_
    corrcoef cos cos_ cosh cosh_ count count_nonzero cov cpu cross crow_indices cuda cummax cummin cumprod
    cumprod_ cumsum cumsum_ data data_ptr deg2rad deg2rad_ dense_dim dequantize det detach detach_ device diag
    diag_embed diagflat diagonal diagonal_scatter diff digamma digamma_ dim dim_order dist div div_ divide
    divide_ dot double dsplit dtype eig element_size eps eq eq_ equal erf erf_ erfc erfc_ erfinv erfinv_ exp
    exp2 exp2_ exp_ expand expand_as expm1 expm1_ exponential_ fill_ fill_diagonal_ fix fix_ flatten flip fliplr
    flipud float float_power float_power_ floor floor_ floor_divide floor_divide_ fmax fmin fmod fmod_ frac
    frac_ frexp gather gcd gcd_ ge ge_ geometric_ geqrf ger get_device get_offset get_state grad grad_dtype
    grad_fn graphsafe_get_state graphsafe_set_state greater greater_ greater_equal greater_equal_ gt gt_ half
    hardshrink hash_tensor heaviside heaviside_ histc histogram hsplit hypot hypot_ i0 i0_ igamma igamma_
    igammac igammac_ imag index index_add index_add_ index_copy index_copy_ index_fill index_fill_ index_put
    index_put_ index_reduce index_reduce_ index_select indices initial_seed inner int int_repr inverse ipu
    is_coalesced is_complex is_conj is_contiguous is_cpu is_cuda is_distributed is_floating_point is_inference
    is_ipu is_leaf is_maia is_meta is_mkldnn is_mps is_mtia is_neg is_nested is_nonzero is_pinned is_quantized
    is_same_size is_set_to is_shared is_signed is_sparse is_sparse_csr is_vulkan is_xla is_xpu isclose isfinite
    isinf isnan isneginf isposinf isreal istft item itemsize kron kthvalue layout lcm lcm_ ldexp ldexp_ le le_
    lerp lerp_ less less_ less_equal less_equal_ lgamma lgamma_ log log10 log10_ log1p log1p_ log2 log2_ log_
    log_normal_ log_softmax logaddexp logaddexp2 logcumsumexp logdet logical_and logical_and_ logical_not
    logical_not_ logical_or logical_or_ logical_xor logical_xor_ logit logit_ logsumexp long lstsq lt lt_ lu
    lu_solve mH mT manual_seed map2_ map_ masked_fill masked_fill_ masked_scatter masked_scatter_ masked_select
    matmul matrix_exp matrix_power max maximum mean median min minimum mm mode module_load moveaxis movedim
    msort mtia mul mul_ multinomial multiply multiply_ mv mvlgamma mvlgamma_ name nan_to_num nan_to_num_ nanmean
    nanmedian nanquantile nansum narrow narrow_copy nbytes ndim ndimension ne ne_ neg neg_ negative negative_
    nelement new new_empty new_empty_strided new_full new_ones new_tensor new_zeros nextafter nextafter_ nonzero
    nonzero_static norm normal_ not_equal not_equal_ numel numpy orgqr ormqr outer output_nr permute pin_memory
    pinverse polygamma polygamma_ positive pow pow_ prelu prod put put_ q_per_channel_axis q_per_channel_scales
    q_per_channel_zero_points q_scale q_zero_point qr qscheme quantile rad2deg rad2deg_ random_ ravel real
    reciprocal reciprocal_ record_stream register_hook register_post_accumulate_grad_hook reinforce relu relu_
    remainder remainder_ renorm renorm_ repeat repeat_interleave requires_grad requires_grad_ reshape reshape_as
    resize resize_ resize_as resize_as_ resize_as_sparse_ resolution resolve_conj resolve_neg retain_grad
    retains_grad roll rot90 round round_ row_indices rsqrt rsqrt_ scatter scatter_ scatter_add scatter_add_
    scatter_reduce scatter_reduce_ seed select select_scatter set_ set_offset set_state sgn sgn_ shape
    share_memory_ short sigmoid sigmoid_ sign sign_ signbit sin sin_ sinc sinc_ sinh sinh_ size slice_inverse
    slice_scatter slogdet smallest_normal smm softmax solve sort sparse_dim sparse_mask sparse_resize_
    sparse_resize_and_clear_ split split_with_sizes sqrt sqrt_ square square_ squeeze squeeze_ sspaddmm std stft
    storage storage_offset storage_type stride sub sub_ subtract subtract_ sum sum_to_size svd swapaxes
    swapaxes_ swapdims swapdims_ symeig t t_ take take_along_dim tan tan_ tanh tanh_ tensor_split tile tiny to
    to_complex to_dense to_mkldnn to_padded_tensor to_real to_sparse to_sparse_bsc to_sparse_bsr to_sparse_coo
    to_sparse_csc to_sparse_csr tolist topk trace transpose transpose_ triangular_solve tril tril_ triu triu_
    true_divide true_divide_ trunc trunc_ type type_as unbind unflatten unfold uniform_ unique
    unique_consecutive unsafe_chunk unsafe_split unsafe_split_with_sizes unsqueeze unsqueeze_ untyped_storage
    values var vdot view view_as volatile vsplit where xlogy xlogy_ xpu zero_
    """,
    # modules and training (nn.Module and containers, optimizers, schedulers, autograd contexts, data)
    """
    OptimizerPostHook OptimizerPreHook T_destination add_module add_param_group append apply arg_constraints
    batch_shape buffers call_super_init cdf check_worker_number_rationality children clear compile copy
    dump_patches elapsed_time entropy enumerate_support eval event_shape extend extra_repr forward
    from_ipc_handle fromkeys get get_backoff_factor get_buffer get_extra_state get_flop_counts get_growth_factor
    get_growth_interval get_last_lr get_lr get_parameter get_scale get_submodule get_table get_total_flops
    has_enumerate_support has_rsample icdf insert ipc_handle is_enabled items keys load_state_dict log_prob
    logits mark_dirty mark_non_differentiable mark_shared_storage modules multiprocessing_context named_buffers
    named_children named_modules named_parameters param_shape parameters perplexity pop popitem probs
    profile_hook_step query record register_backward_hook register_buffer register_forward_hook
    register_forward_pre_hook register_full_backward_hook register_full_backward_pre_hook
    register_load_state_dict_post_hook register_load_state_dict_pre_hook register_module register_parameter
    register_state_dict_post_hook register_state_dict_pre_hook register_step_post_hook register_step_pre_hook
    rsample sample sample_n save_for_backward save_for_forward scale set_backoff_factor
    set_default_validate_args set_extra_state set_growth_factor set_growth_interval set_materialize_grads
    set_submodule setdefault share_memory state_dict stddev step support synchronize to_empty train unscale_
    update variance wait zero_grad
    """,
    # numpy arrays and generators
    """
    alignment argpartition astype base beta binomial bit_generator byteorder bytes byteswap chisquare choice
    choose compress conjugate ctypes descr dirichlet exponential f fields fill flags flat gamma geometric
    getfield gumbel hasobject hypergeometric integers isalignedstruct isbuiltin isnative kind laplace logistic
    lognormal logseries metadata multivariate_hypergeometric multivariate_normal names negative_binomial
    newbyteorder noncentral_chisquare noncentral_f normal num pareto partition permutation permuted poisson
    power rand randint randn random random_integers random_sample rayleigh searchsorted setfield setflags
    shuffle spawn standard_cauchy standard_exponential standard_gamma standard_normal standard_t str strides
    subdtype to_device tobytes tomaxint triangular uniform vonmises wald weibull zipf
    """,
    # Python's own values
    """
    VERSION add_note adjusted appendleft args as_integer_ratio as_tuple astimezone betavariate bit_count
    bit_length callback canonical capitalize casefold center choices close combine compare compare_signal
    compare_total compare_total_mag copy_abs copy_negate copy_sign ctime date day days decode default_factory
    denominator difference difference_update discard dst elements encode end endpos endswith enter_context
    expandtabs expovariate extendleft find findall finditer fma fold from_bytes from_decimal from_float fromhex
    fromisocalendar fromisoformat fromordinal fromtimestamp fullmatch gammavariate gauss getrandbits getstate
    gi_code gi_frame gi_running gi_suspended gi_yieldfrom group groupdict groupindex groups hex hour
    intersection intersection_update is_canonical is_finite is_infinite is_integer is_nan is_normal is_qnan
    is_snan is_subnormal is_zero isalnum isalpha isascii isdecimal isdigit isdisjoint isidentifier islower
    isnumeric isocalendar isoformat isoweekday isprintable isspace issubset issuperset istitle isupper join
    lastgroup lastindex limit_denominator ljust ln logb logical_invert lognormvariate lower lstrip maketrans
    match max_mag maxlen microsecond microseconds min_mag minute month most_common move_to_end next_minus
    next_plus next_toward normalize normalvariate now number_class numerator paretovariate pattern pop_all
    popleft pos push quantize radix randbytes randrange re regs remainder_near remove removeprefix removesuffix
    replace reverse rfind rindex rjust rotate rpartition rsplit rstrip same_quantum scaleb scanner search second
    seconds send setstate shift span splitlines start startswith stop strftime string strip strptime subn
    swapcase symmetric_difference symmetric_difference_update throw time timestamp timetuple timetz title
    to_bytes to_eng_string to_integral to_integral_exact to_integral_value today toordinal total total_seconds
    translate tzinfo tzname union upper utcfromtimestamp utcnow utcoffset utctimetuple vonmisesvariate weekday
    weibullvariate with_traceback year zfill
    """,
    # named tuples: their public methods start with "_" so as not to clash with their fields
    """
    _asdict _fields _field_defaults _make _replace
    """,
    # the parts of torch's own layers (norm1, self_attn, out_proj: what the hidden tests build and compare with)
    """
    activation activation_relu_or_gelu add_zero_attn affine all_weights batch_first bias bias_hh bias_hh_l0
    bias_ih bias_ih_l0 bias_k bias_v bidirectional check_forward_args check_hidden_size check_input d_model
    decoder dilation dropout dropout1 dropout2 dropout3 elementwise_affine embed_dim embedding_dim encoder
    flatten_parameters from_pretrained generate_square_subsequent_mask get_expected_cell_size
    get_expected_hidden_size head_dim hidden_size in1_features in2_features in_channels in_features in_proj_bias
    in_proj_weight input_size kdim kernel_size max_norm merge_masks momentum multihead_attn nhead nonlinearity
    norm1 norm2 norm3 norm_first norm_type normalized_shape num_batches_tracked num_embeddings num_features
    num_heads num_layers num_parameters out_channels out_features out_proj output_padding padding padding_idx
    padding_mode permute_hidden proj_size reset_parameters running_mean running_var scale_grad_by_freq self_attn
    sparse track_running_stats training transposed vdim weight weight_hh weight_hh_l0 weight_ih weight_ih_l0
    """,
    # torch's profiler (what ran: not its exports, which write files)
    """
    events key_averages table total_average step start stop
    """,
    # threads
    """
    acquire acquire_lock add_done_callback cancel cancelled daemon done empty exception full getName get_nowait
    ident isDaemon isSet is_alive is_set locked locked_lock map native_id notify notifyAll notify_all put_nowait
    qsize release release_lock result run running set setDaemon setName set_exception set_result
    set_running_or_notify_cancel shutdown submit task_done wait_for
    """,
    # plots and progress bars (matplotlib, tqdm)
    """
    ArtistList OFFSETTEXTPAD acorr add_artist add_axes add_axobserver add_callback add_child_axes add_collection
    add_container add_gridspec add_image add_line add_lines add_patch add_subfigure add_subplot add_table
    align_labels align_titles align_xlabels align_ylabels angle_spectrum annotate apply_aspect arrow artists
    autofmt_xdate autoscale autoscale_None autoscale_view axes axhline axhspan axis axis_date axline axvline
    axvspan bar bar_label barbs barh bottoms boxplot broken_barh bxp can_composite can_pan can_zoom changed cla
    clabel clf cmap codes cohere collections colorbar colorizer contains contains_point contains_points contour
    contourf convert_units convert_xunits convert_yunits converter csd delaxes display dpi drag_pan draw
    drawStyleKeys drawStyles draw_artist draw_frame draw_without_rendering ecdf end_pan errorbar eventplot
    external_write_mode figimage figure fillStyles fill_between fill_betweenx filled_markers findobj
    format_coord format_cursor_data format_dict format_interval format_meter format_num format_sizeof
    format_xdata format_ydata formatter frameon gca get_aa get_adjustable get_agg_filter get_alignment get_alpha
    get_anchor get_angle get_animated get_antialiased get_antialiaseds get_array get_aspect get_autoscale_on
    get_autoscalex_on get_autoscaley_on get_axes get_axes_locator get_axisbelow get_bad get_bbox get_bbox_patch
    get_bbox_to_anchor get_box_aspect get_c get_capstyle get_center get_children get_clim get_clip_box
    get_clip_on get_clip_path get_cmap get_color get_constrained_layout get_constrained_layout_pads
    get_converter get_corners get_cursor_data get_dash_capstyle get_dash_joinstyle get_dashes get_data
    get_data_interval get_data_ratio get_data_transform get_datalim get_default_bbox_extra_artists
    get_default_handler_map get_dpi get_draggable get_drawstyle get_ds get_ec get_edgecolor get_edgecolors
    get_edgegapcolor get_extent get_extents get_facecolor get_facecolors get_family get_fc get_figheight
    get_figure get_figwidth get_fill get_fillstyle get_filternorm get_filterrad get_font get_font_properties
    get_fontfamily get_fontfeatures get_fontname get_fontproperties get_fontsize get_fontstyle get_fontvariant
    get_fontweight get_forward_navigation_events get_frame get_frame_on get_frameon get_gapcolor get_gid
    get_gridlines get_gridspec get_ha get_hatch get_hatch_linewidth get_hatchcolor get_height
    get_horizontalalignment get_images get_in_layout get_interpolation get_interpolation_stage get_inverted
    get_joinstyle get_label get_label_position get_label_text get_language get_layout_engine get_legend
    get_legend_handler get_legend_handler_map get_legend_handles_labels get_lines get_linespacing get_linestyle
    get_linestyles get_linewidth get_linewidths get_lock get_ls get_lw get_major_formatter get_major_locator
    get_major_ticks get_majorticklabels get_majorticklines get_majorticklocs get_marker get_markeredgecolor
    get_markeredgewidth get_markerfacecolor get_markerfacecoloralt get_markersize get_markevery
    get_math_fontfamily get_mec get_mew get_mfc get_mfcalt get_minor_formatter get_minor_locator get_minor_ticks
    get_minorticklabels get_minorticklines get_minorticklocs get_minpos get_mouseover get_ms get_name
    get_navigate get_navigate_mode get_offset_text get_offset_transform get_offsets get_over get_parse_math
    get_patch_transform get_patches get_path get_path_effects get_paths get_picker get_pickradius get_position
    get_rasterization_zorder get_rasterized get_remove_overlapping_locs get_resample get_rotation
    get_rotation_mode get_shape get_shared_x_axes get_shared_y_axes get_size get_size_inches get_sizes
    get_sketch_params get_snap get_solid_capstyle get_solid_joinstyle get_stretch get_style get_subplotspec
    get_suptitle get_supxlabel get_supylabel get_text get_texts get_tick_padding get_tick_params get_tick_space
    get_ticklabels get_ticklines get_ticklocs get_ticks get_ticks_direction get_tight_layout get_tightbbox
    get_title get_transOffset get_transform get_transform_rotates_text get_transformed_clip_path_and_affine
    get_transforms get_under get_unitless_position get_units get_url get_urls get_usetex get_va get_variant
    get_verticalalignment get_verts get_view_interval get_visible get_weight get_width get_window_extent
    get_wrap get_x get_xaxis get_xaxis_text1_transform get_xaxis_text2_transform get_xaxis_transform get_xbound
    get_xdata get_xgridlines get_xinverted get_xlabel get_xlim get_xmajorticklabels get_xmargin
    get_xminorticklabels get_xscale get_xticklabels get_xticklines get_xticks get_xy get_xydata get_y get_yaxis
    get_yaxis_text1_transform get_yaxis_text2_transform get_yaxis_transform get_ybound get_ydata get_ygridlines
    get_yinverted get_ylabel get_ylim get_ymajorticklabels get_ymargin get_yminorticklabels get_yscale
    get_yticklabels get_yticklines get_yticks get_zorder ginput grid grouped_bar has_data have_units hexbin hist
    hist2d hlines images imshow in_axes indicate_inset indicate_inset_zoom inset_axes invert_xaxis invert_yaxis
    isDefault_majfmt isDefault_majloc isDefault_minfmt isDefault_minloc is_dashed is_gray is_transform_set
    label_outer legend legend_elements limit_range_for_scale lineStyles lines locator locator_params loglog
    long_axis magnitude_spectrum majorTicks make_image margins markers matshow minorTicks minorformatter
    minorlocator minorticks_off minorticks_on monitor monitor_interval mouseover moveto n_components n_rasterize
    number pandas patches pchanged pcolor pcolorfast pcolormesh phase_spectrum pick pickable pickradius pie
    pie_label plot position_centers process_value properties psd quiver quiverkey recache recache_always
    redraw_in_frame refresh relim remove_callback remove_overlapping_locs resampled reset reset_position
    reset_ticks reversed rotation_point sca scaled secondary_xaxis secondary_yaxis semilogx semilogy set_aa
    set_adjustable set_agg_filter set_alignment set_alpha set_anchor set_angle set_animated set_antialiased
    set_antialiaseds set_array set_aspect set_autoscale_on set_autoscalex_on set_autoscaley_on set_axes_locator
    set_axis_off set_axis_on set_axisbelow set_backgroundcolor set_bad set_bbox set_bbox_to_anchor set_bounds
    set_box_aspect set_c set_canvas set_capstyle set_clim set_clip_box set_clip_on set_clip_path set_cmap
    set_color set_constrained_layout set_constrained_layout_pads set_converter set_dash_capstyle
    set_dash_joinstyle set_dashes set_data set_data_interval set_default_handler_map set_default_intervals
    set_description set_description_str set_dpi set_draggable set_drawstyle set_ds set_ec set_edgecolor
    set_edgecolors set_edgegapcolor set_extent set_extremes set_facecolor set_facecolors set_family set_fc
    set_figheight set_figure set_figwidth set_fill set_fillstyle set_filternorm set_filterrad set_font
    set_font_properties set_fontfamily set_fontfeatures set_fontname set_fontproperties set_fontsize
    set_fontstretch set_fontstyle set_fontvariant set_fontweight set_forward_navigation_events set_frame_on
    set_frameon set_gapcolor set_gid set_ha set_hatch set_hatch_linewidth set_hatchcolor set_height
    set_horizontalalignment set_in_layout set_interpolation set_interpolation_stage set_inverted set_joinstyle
    set_label set_label_coords set_label_position set_label_text set_language set_layout_engine set_linespacing
    set_linestyle set_linestyles set_linewidth set_linewidths set_loc set_lock set_ls set_lw set_ma
    set_major_formatter set_major_locator set_marker set_markeredgecolor set_markeredgewidth set_markerfacecolor
    set_markerfacecoloralt set_markersize set_markevery set_math_fontfamily set_mec set_mew set_mfc set_mfcalt
    set_minor_formatter set_minor_locator set_mouseover set_ms set_multialignment set_name set_navigate
    set_navigate_mode set_ncols set_norm set_offset_transform set_offsets set_over set_parse_math
    set_path_effects set_paths set_picker set_pickradius set_position set_postfix set_postfix_str set_prop_cycle
    set_rasterization_zorder set_rasterized set_remove_overlapping_locs set_resample set_rotation
    set_rotation_mode set_size set_size_inches set_sizes set_sketch_params set_snap set_solid_capstyle
    set_solid_joinstyle set_stretch set_style set_subplotspec set_text set_tick_params set_ticklabels set_ticks
    set_tight_layout set_title set_transOffset set_transform set_transform_rotates_text set_under set_units
    set_url set_urls set_usetex set_va set_variant set_verticalalignment set_view_interval set_visible
    set_weight set_width set_wrap set_x set_xbound set_xdata set_xinverted set_xlabel set_xlim set_xmargin
    set_xscale set_xticklabels set_xticks set_xy set_y set_ybound set_ydata set_yinverted set_ylabel set_ylim
    set_ymargin set_yscale set_yticklabels set_yticks set_zorder sharex sharey show specgram spy stackplot
    stairs stale start_pan status_printer stem sticky_edges streamplot subfigures subplot_mosaic subplots
    subplots_adjust suptitle supxlabel supylabel table tables text texts tick_params ticklabel_format
    tight_layout to_rgba tops tricontour tricontourf tripcolor triplot twinx twiny unpause
    update_bbox_position_size update_datalim update_default_handler_map update_from update_normal
    update_scalarmappable update_ticks update_units use_sticky_edges viewLim violin violinplot vlines vmax vmin
    waitforbuttonpress with_alpha with_extremes wrapattr write write_png xaxis_date xaxis_inverted xcorr xy
    yaxis_date yaxis_inverted zorder
    """,
    # BLEU scores (sacrebleu)
    """
    BETA CHAR_ORDER SMOOTH_DEFAULTS TOKENIZERS TOKENIZER_DEFAULT WORD_ORDER compute_bleu corpus_score
    estimate_ci get_signature sentence_score
    """,
)).split())
