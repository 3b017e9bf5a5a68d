"""What student code may reach beyond torch: builtins, the standard library, numpy, matplotlib, tqdm, sacreBLEU.

For the source screen (`allowlist` reads it) and for instructors who want to know what a submission
may use. Builtins that are plain computation (not `exec`, `eval`, `compile`, `__import__`, `open`,
`input`, `help`, `globals`, `locals`, `vars`, `breakpoint`, `memoryview`); the standard library's
computing modules, whole (`math`, `itertools`, ...) or in part (`sys` for printing to stderr, `time`
for timing, `threading` for threads, `typing` for annotations without `get_type_hints`, which
evaluates strings); numpy without its files and C interfaces (`load`, `save`, `fromfile`, `memmap`,
`ctypeslib`, `lib`, `f2py`, `info`); matplotlib's plotting (not `savefig`, `rc_file` or backends, which
import modules by name); tqdm's bars; sacreBLEU's scores (a shortcut only in `corpus_bleu`, which
`shortcuts` forbids there). A "class" is a class whose attributes can be set; a "value" is anything
else, builtin types and numpy's scalar types among them.
"""

MODULES = frozenset("""
    IPython IPython.display __future__ abc array bisect cmath collections collections.abc concurrent
    concurrent.futures contextlib copy dataclasses datetime decimal enum fractions functools heapq itertools json
    math matplotlib matplotlib.cm matplotlib.colors matplotlib.patches matplotlib.pyplot matplotlib.pyplot.cm
    matplotlib.ticker numbers numpy numpy.fft numpy.linalg numpy.random operator pprint queue random re sacrebleu
    sacrebleu.metrics sacrebleu.tokenizers sacrebleu.tokenizers.tokenizer_13a statistics string sys textwrap
    threading time tqdm tqdm.auto tqdm.notebook typing unicodedata warnings
""".split())

FUNCTIONS = {
    "IPython.display": "clear_output display",
    "abc": "abstractmethod",
    "bisect": "bisect bisect_left bisect_right insort insort_left insort_right",
    "builtins": """
        abs aiter all anext any ascii bin callable chr delattr dir display divmod format getattr hasattr hash hex id
        isinstance issubclass iter len max min next oct ord pow print repr round setattr sorted sum""",
    "cmath": """
        acos acosh asin asinh atan atanh cos cosh exp isclose isfinite isinf isnan log log10 phase polar rect sin
        sinh sqrt tan tanh""",
    "collections": "namedtuple",
    "concurrent.futures": "as_completed wait",
    "contextlib": "contextmanager",
    "copy": "copy deepcopy",
    "dataclasses": "asdict astuple dataclass field fields is_dataclass replace",
    "decimal": "localcontext",
    "enum": "unique",
    "functools": "cache cmp_to_key lru_cache reduce total_ordering wraps",
    "heapq": "heapify heappop heappush heappushpop heapreplace merge nlargest nsmallest",
    "itertools": "tee",
    "json": "dumps loads",
    "math": """
        acos acosh asin asinh atan atan2 atanh cbrt ceil comb copysign cos cosh degrees dist erf erfc exp exp2 expm1
        fabs factorial floor fmod frexp fsum gamma gcd hypot isclose isfinite isinf isnan isqrt lcm ldexp lgamma log
        log10 log1p log2 modf nextafter perm pow prod radians remainder sin sinh sqrt tan tanh trunc ulp""",
    "matplotlib": "colormaps",
    "matplotlib.colors": "to_hex to_rgb to_rgba",
    "matplotlib.pyplot": """
        annotate autoscale axhline axhspan axis axvline axvspan bar barh box boxplot cla clf clim close colorbar
        colormaps contour contourf draw ecdf errorbar figlegend fignum_exists figtext figure fill_between
        fill_betweenx gca gcf get_cmap get_fignums grid hist hist2d hlines imshow ioff ion isinteractive legend
        locator_params loglog margins matshow minorticks_off minorticks_on pause pcolor pcolormesh pie plot quiver
        sca scatter semilogx semilogy set_cmap show stairs stem step subplot subplot_mosaic subplots subplots_adjust
        suptitle text tick_params tight_layout title twinx twiny violinplot vlines xlabel xlim xscale xticks ylabel
        ylim yscale yticks""",
    "numpy": """
        abs absolute acos acosh add all allclose amax amin angle any append apply_along_axis apply_over_axes arange
        arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin argpartition argsort argwhere around
        array array2string array_equal array_equiv array_repr array_split array_str asanyarray asarray
        asarray_chkfinite ascontiguousarray asfortranarray asin asinh asmatrix astype atan atan2 atanh atleast_1d
        atleast_2d atleast_3d average bartlett base_repr binary_repr bincount bitwise_and bitwise_count
        bitwise_invert bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor blackman block bmat
        broadcast_arrays broadcast_shapes broadcast_to busday_count busday_offset can_cast cbrt ceil choose clip
        column_stack common_type compress concat concatenate conj conjugate convolve copy copysign copyto corrcoef
        correlate cos cosh count_nonzero cov cross cumprod cumsum cumulative_prod cumulative_sum datetime_as_string
        datetime_data deg2rad degrees delete diag diag_indices diag_indices_from diagflat diagonal diff digitize
        divide divmod dot dsplit dstack ediff1d einsum einsum_path empty empty_like equal exp exp2 expand_dims expm1
        extract eye fabs fill_diagonal fix flatnonzero flip fliplr flipud float_power floor floor_divide fmax fmin
        fmod format_float_positional format_float_scientific frexp from_dlpack frombuffer fromfunction fromiter
        frompyfunc fromstring full full_like gcd geomspace get_printoptions getbufsize geterr geterrcall gradient
        greater greater_equal hamming hanning heaviside histogram histogram2d histogram_bin_edges histogramdd hsplit
        hstack hypot i0 identity imag indices inner insert interp intersect1d invert is_busday isclose iscomplex
        iscomplexobj isdtype isfinite isfortran isin isinf isnan isnat isneginf isposinf isreal isrealobj isscalar
        issubdtype iterable ix_ kaiser kron lcm ldexp left_shift less less_equal lexsort linspace log log10 log1p
        log2 logaddexp logaddexp2 logical_and logical_not logical_or logical_xor logspace mask_indices matmul
        matrix_transpose matvec max maximum may_share_memory mean median meshgrid min min_scalar_type minimum
        mintypecode mod modf moveaxis multiply nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax nanmean
        nanmedian nanmin nanpercentile nanprod nanquantile nanstd nansum nanvar ndim negative nested_iters nextafter
        nonzero not_equal ones ones_like outer packbits pad partition percentile permute_dims piecewise place poly
        polyadd polyder polydiv polyfit polyint polymul polysub polyval positive pow power printoptions prod
        promote_types ptp put put_along_axis putmask quantile rad2deg radians ravel ravel_multi_index real
        real_if_close reciprocal remainder repeat require reshape resize result_type right_shift rint roll rollaxis
        roots rot90 round row_stack searchsorted select set_printoptions setbufsize setdiff1d seterr seterrcall
        setxor1d shape shares_memory sign signbit sin sinc sinh size sort sort_complex spacing split sqrt square
        squeeze stack std subtract sum swapaxes take take_along_axis tan tanh tensordot tile trace transpose
        trapezoid tri tril tril_indices tril_indices_from trim_zeros triu triu_indices triu_indices_from true_divide
        trunc typename union1d unique unique_all unique_counts unique_inverse unique_values unpackbits unravel_index
        unstack unwrap vander var vdot vecdot vecmat vsplit vstack where zeros zeros_like""",
    "numpy.fft": """
        fft fft2 fftfreq fftn fftshift hfft ifft ifft2 ifftn ifftshift ihfft irfft irfft2 irfftn rfft rfft2 rfftfreq
        rfftn""",
    "numpy.linalg": """
        cholesky cond cross det diagonal eig eigh eigvals eigvalsh inv lstsq matmul matrix_norm matrix_power
        matrix_rank matrix_transpose multi_dot norm outer pinv qr slogdet solve svd svdvals tensordot tensorinv
        tensorsolve trace vecdot vector_norm""",
    "numpy.random": """
        beta binomial bytes chisquare choice default_rng dirichlet exponential f gamma geometric get_state gumbel
        hypergeometric laplace logistic lognormal logseries multinomial multivariate_normal negative_binomial
        noncentral_chisquare noncentral_f normal pareto permutation poisson power rand randint randn random
        random_integers random_sample ranf rayleigh sample seed set_state shuffle standard_cauchy
        standard_exponential standard_gamma standard_normal standard_t triangular uniform vonmises wald weibull zipf""",
    "operator": """
        abs add and_ call concat contains countOf eq floordiv ge getitem gt iadd iand iconcat ifloordiv
        ilshift imatmul imod imul index indexOf inv invert ior ipow irshift is_ is_not isub itruediv ixor le
        length_hint lshift lt matmul mod mul ne neg not_ or_ pos pow rshift sub truediv truth xor""",
    "pprint": "pformat pp pprint",
    "random": """
        betavariate choice choices expovariate gauss getrandbits normalvariate randint random randrange sample seed
        shuffle uniform""",
    "re": "compile escape findall finditer fullmatch match search split sub subn",
    "sacrebleu": "corpus_bleu corpus_chrf corpus_ter sentence_bleu sentence_chrf",
    "statistics": """
        correlation covariance fmean geometric_mean harmonic_mean linear_regression mean median median_high
        median_low mode multimode pstdev pvariance quantiles stdev variance""",
    "string": "capwords",
    "sys": "getrecursionlimit getsizeof",
    "sys.stderr": "flush write",
    "sys.stdout": "flush write",
    "textwrap": "dedent fill indent shorten wrap",
    "threading": "Lock RLock active_count current_thread get_ident main_thread",
    "time": """
        gmtime localtime monotonic monotonic_ns perf_counter perf_counter_ns process_time process_time_ns sleep
        strftime time time_ns""",
    "tqdm": "trange",
    "tqdm.auto": "trange",
    "tqdm.notebook": "trange",
    "typing": """
        Callable ClassVar Counter DefaultDict Deque Dict Final FrozenSet Generator Hashable Iterable Iterator List
        Literal Mapping MutableMapping NamedTuple Optional OrderedDict Self Sequence Set Sized Tuple Type TypeAlias
        Union cast overload""",
    "unicodedata": "category name normalize",
    "warnings": "filterwarnings resetwarnings simplefilter warn",
}

CLASSES = {
    "abc": "ABC",
    "builtins": "ExceptionGroup",
    "collections": "ChainMap Counter",
    "collections.abc": """
        Callable Collection Container Generator Hashable Iterable Iterator Mapping MutableMapping MutableSequence
        MutableSet Sequence Set Sized""",
    "concurrent.futures": "Future ThreadPoolExecutor",
    "contextlib": "ExitStack closing nullcontext redirect_stderr redirect_stdout suppress",
    "dataclasses": "InitVar",
    "enum": "Enum Flag IntEnum IntFlag StrEnum auto",
    "fractions": "Fraction",
    "functools": "cached_property partialmethod",
    "json": "JSONDecodeError",
    "matplotlib.cm": "ScalarMappable",
    "matplotlib.colors": "BoundaryNorm LinearSegmentedColormap ListedColormap LogNorm Normalize TwoSlopeNorm",
    "matplotlib.patches": "Circle FancyArrowPatch Patch Polygon Rectangle",
    "matplotlib.ticker": """
        FixedLocator FormatStrFormatter FuncFormatter LogLocator MaxNLocator MultipleLocator NullFormatter
        PercentFormatter ScalarFormatter""",
    "numbers": "Complex Integral Number Rational Real",
    "numpy": "errstate finfo iinfo matrix ndenumerate ndindex poly1d recarray record vectorize",
    "numpy.linalg": "LinAlgError",
    "pprint": "PrettyPrinter",
    "queue": "Empty Full LifoQueue PriorityQueue Queue",
    "random": "Random",
    "re": "error",
    "sacrebleu": "BLEU CHRF TER",
    "sacrebleu.metrics": "BLEU CHRF TER",
    "sacrebleu.tokenizers.tokenizer_13a": "Tokenizer13a",
    "statistics": "NormalDist",
    "string": "Template",
    "textwrap": "TextWrapper",
    "threading": "Barrier BoundedSemaphore Condition Event Semaphore Thread Timer",
    "tqdm": "tqdm",
    "tqdm.auto": "tqdm",
    "tqdm.notebook": "tqdm",
    "typing": "Annotated Any Generic Protocol TypeVar",
    "warnings": "catch_warnings",
}

VALUES = {
    "__future__": "annotations",
    "array": "array",
    "builtins": """
        ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup BlockingIOError
        BrokenPipeError BufferError BytesWarning ChildProcessError ConnectionAbortedError ConnectionError
        ConnectionRefusedError ConnectionResetError DeprecationWarning EOFError Ellipsis EncodingWarning
        EnvironmentError Exception FileExistsError FileNotFoundError FloatingPointError FutureWarning GeneratorExit
        IOError ImportError ImportWarning IndentationError IndexError InterruptedError IsADirectoryError KeyError
        KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError NotADirectoryError NotImplemented
        NotImplementedError OSError OverflowError PendingDeprecationWarning PermissionError ProcessLookupError
        RecursionError ReferenceError ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration StopIteration
        SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError TypeError UnboundLocalError
        UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning UserWarning
        ValueError Warning ZeroDivisionError bool bytearray bytes classmethod complex dict enumerate filter float
        frozenset int list map object property range reversed set slice staticmethod str super tuple type zip""",
    "cmath": "e inf infj nan nanj pi tau",
    "collections": "OrderedDict defaultdict deque",
    "dataclasses": "KW_ONLY MISSING",
    "datetime": "date datetime time timedelta timezone",
    "decimal": "Decimal",
    "functools": "partial",
    "itertools": """
        accumulate chain combinations combinations_with_replacement compress count cycle dropwhile filterfalse
        groupby islice pairwise permutations product repeat starmap takewhile zip_longest""",
    "math": "e inf nan pi tau",
    "numpy": """
        False_ ScalarType True_ bool bool_ broadcast busdaycalendar byte bytes_ c_ cdouble character clongdouble
        complex128 complex256 complex64 complexfloating csingle datetime64 double dtype e euler_gamma flatiter
        flexible float128 float16 float32 float64 floating generic half index_exp inexact inf int16 int32 int64 int8
        int_ intc integer intp little_endian long longdouble longlong mgrid nan ndarray nditer newaxis number
        object_ ogrid pi r_ s_ short signedinteger single str_ timedelta64 typecodes ubyte ufunc uint
        uint16 uint32 uint64 uint8 uintc uintp ulong ulonglong unsignedinteger ushort void""",
    "numpy.random": "BitGenerator Generator MT19937 PCG64 PCG64DXSM Philox RandomState SFC64 SeedSequence",
    "operator": "attrgetter itemgetter methodcaller",
    "queue": "SimpleQueue",
    "re": "A ASCII DOTALL I IGNORECASE M MULTILINE Match Pattern S VERBOSE X",
    "string": """
        ascii_letters ascii_lowercase ascii_uppercase digits hexdigits octdigits printable punctuation whitespace""",
    "sys": "byteorder float_info hash_info int_info maxsize platform stderr stdout version version_info",
    "threading": "local",
    "typing": "TYPE_CHECKING",
}
