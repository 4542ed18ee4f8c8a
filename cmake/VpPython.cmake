# Finds what the Python module needs: Debian's python3 (the interpreter
# python3-numpy, -torch and -sklearn are installed for, even when a pyenv or
# venv python3 comes first on PATH), its development files and pybind11.
# Sets VP_PYTHON_MODULE when the module will be built; the rest of the
# build does not depend on it.
set(VP_PYTHON_MODULE OFF)
set(VP_PYTHON_WHY "VP_PYTHON=OFF")
if(VP_PYTHON AND VP_SANITIZE)
  # A sanitizer runtime must be the first library of the program; python3
  # is not built with it, so an instrumented module cannot be imported.
  set(VP_PYTHON_WHY "VP_SANITIZE=ON: python3 cannot load a sanitizer-instrumented module")
  message(STATUS "Python module: not built (${VP_PYTHON_WHY})")
elseif(VP_PYTHON)
  if(NOT Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3)
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module)
  if(Python3_FOUND)
    find_package(pybind11 CONFIG QUIET)
  endif()
  if(Python3_FOUND AND pybind11_FOUND)
    set(VP_PYTHON_MODULE ON)
    message(STATUS "Python module: building for ${Python3_EXECUTABLE} (${Python3_VERSION}) with pybind11 ${pybind11_VERSION}")
  elseif(NOT Python3_FOUND)
    set(VP_PYTHON_WHY "no Python 3 development files: install python3-dev")
    message(STATUS "Python module: not built (${VP_PYTHON_WHY})")
  else()
    set(VP_PYTHON_WHY "pybind11 not found: install pybind11-dev")
    message(STATUS "Python module: not built (${VP_PYTHON_WHY})")
  endif()
else()
  message(STATUS "Python module: not built (${VP_PYTHON_WHY})")
endif()

# Where `cmake --install` puts the package: Debian's dist-packages layout
# (on sys.path for the /usr prefix; PYTHONPATH=P/lib/python3/dist-packages
# for another prefix P).
set(VP_INSTALL_PYTHONDIR lib/python3/dist-packages CACHE STRING "Install folder of the sidra_vp package, under the prefix")
